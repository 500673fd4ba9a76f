public import ArgumentParser
import FoundationEssentials
import Glibc
public import Logging
public import VigilLogging
import VigilPaths
package import VigilSettings

/// `--log-level`, `--log-format`, `--log-file`: on every command.
package struct LogOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Log from this level up, on standard error too.", valueName: "level"))
    package var logLevel: Logger.Level?

    @Option(help: ArgumentHelp("The log lines' format.", valueName: "format"))
    package var logFormat: LogConfiguration.Format?

    @Option(help: ArgumentHelp("The log file (default: $XDG_STATE_HOME/vigil/logs/vigil.log).", valueName: "file"), completion: .file())
    package var logFile: String?

    package init() {}
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LogConfiguration.Format: ExpressibleByArgument {}

/// Where Vigil keeps its state.
package enum StatePaths {
    package static var stateHome: String { XDGDirectories().stateHome }
    package static var logFile: String { stateHome + "/vigil/logs/vigil.log" }
    package static var logHashKey: String { stateHome + "/vigil/log-hash.key" }
    /// Per-account lock files of token refreshes.
    package static var locks: String { stateHome + "/vigil/locks" }
}

/// Settings plus logging, set up once per command.
package enum CommandContext {
    /// Loads settings (strictly unless `reporting`), bootstraps logging, returns both.
    package static func start(_ options: LogOptions, reporting: Bool = false) throws -> (Settings, Logger) {
        let settings = reporting ? try SettingsContext.loadReporting() : try SettingsContext.load()
        var configuration = LogConfiguration()
        if let level = settings[.logLevel].flatMap(Logger.Level.init(rawValue:)) { configuration.level = level }
        if let format = settings[.logFormat].flatMap(LogConfiguration.Format.init(rawValue:)) { configuration.format = format }
        configuration.privacyMask = settings[.logPrivacyMask] ?? true
        configuration.onlyTags = settings[.logOnlyTags]
        configuration.omitTags = settings[.logOmitTags]
        configuration.onlyMatching = settings[.logOnlyMatching]
        configuration.omitMatching = settings[.logOmitMatching]
        configuration.maximumMessageSize = settings[.logMaximumMessageSize] ?? 0
        configuration.singleLined = settings[.logSingleLined] ?? true
        configuration.logHTTPRequests = settings.logsHTTPExchanges
        configuration.blankFilteredMessages = settings[.logBlankFilteredMessages] ?? false
        configuration.colored = settings[.logColored] ?? false
        configuration.synchronous = settings[.logSynchronous] ?? false
        if let level = options.logLevel { configuration.level = level }
        if let format = options.logFormat { configuration.format = format }

        // Standard error shows no log line unless asked: everything at --log-level, or warnings and
        // worse with `writer.stderr` in log.enabled-components (the commands say what happened).
        // `log.level off` and `log.enabled-components` switch writers off; a flag switches its own on.
        // `off` is the settings' word; a flag on the command line still switches its writer on.
        let levelOff = settings[.logLevel] == "off"
        let stderrOff = levelOff && options.logLevel == nil
        let fileOff = levelOff && options.logLevel == nil && options.logFile == nil
        let components = Set(settings[.logEnabledComponents] ?? [SettingsCatalog.logComponentFile])
        let stderrLevel = options.logLevel ?? max(configuration.level, .warning)
        var sinks: [any LogSink] = []
        if !stderrOff, options.logLevel != nil || components.contains(SettingsCatalog.logComponentStandardError) {
            sinks.append(StandardErrorSink(minimumLevel: stderrLevel))
        }
        if !fileOff, options.logFile != nil || components.contains(SettingsCatalog.logComponentFile) {
            sinks.append(
                RotatingFileSink(path: options.logFile ?? StatePaths.logFile, minimumLevel: configuration.level, synchronous: configuration.synchronous))
        }
        let hasher = LogHasher.persistent(at: StatePaths.logHashKey)
        let (chosen, writers) = (configuration, sinks)
        LoggingSystem.bootstrap { label in chosen.handler(label: label, sinks: writers, hasher: hasher) }
        var logger = Logger(label: "vigil")
        logger.logLevel = sinks.isEmpty ? .critical : min(configuration.level, stderrLevel)
        return (settings, logger)
    }
}
