public import ArgumentParser
import Foundation
public import Logging
public import VigilLogging
import VigilSettings

/// `--log-level`, `--log-format`, `--log-file`: on every command.
struct LogOptions: ParsableArguments {
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (also shown on standard error).")
    var logLevel: Logger.Level?

    @Option(help: "Log format: text, json, json-composed.")
    var logFormat: LogConfiguration.Format?

    @Option(help: "Log file (default: $XDG_STATE_HOME/vigil/logs/vigil.log).")
    var logFile: String?
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LogConfiguration.Format: ExpressibleByArgument {}

/// Where Vigil keeps its state.
enum StatePaths {
    static var stateHome: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg }
        return (environment["HOME"] ?? "/root") + "/.local/state"
    }
    static var logFile: String { stateHome + "/vigil/logs/vigil.log" }
    static var logHashKey: String { stateHome + "/vigil/log-hash.key" }
    /// Per-account lock files of token refreshes.
    static var locks: String { stateHome + "/vigil/locks" }
}

/// Settings plus logging, set up once per command.
enum CommandContext {
    /// Loads settings (strictly unless `reporting`), bootstraps logging, returns both.
    static func start(_ options: LogOptions, reporting: Bool = false) -> (Settings, Logger) {
        let settings = reporting ? SettingsContext.loadReporting() : SettingsContext.load()
        var configuration = LogConfiguration()
        if let level = settings.string("log.level").flatMap(Logger.Level.init(rawValue:)) { configuration.level = level }
        if let format = settings.string("log.format").flatMap(LogConfiguration.Format.init(rawValue:)) { configuration.format = format }
        configuration.privacyMask = settings.bool("log.privacy-mask") ?? true
        configuration.onlyTags = settings.strings("log.only-tags")
        configuration.omitTags = settings.strings("log.omit-tags")
        configuration.onlyMatching = settings.strings("log.only-matching")
        configuration.omitMatching = settings.strings("log.omit-matching")
        configuration.maximumMessageSize = settings.integer("log.maximum-message-size") ?? 0
        configuration.singleLined = settings.bool("log.single-lined") ?? true
        configuration.logHTTPRequests = settings.bool("log.http-requests") ?? false
        if let level = options.logLevel { configuration.level = level }
        if let format = options.logFormat { configuration.format = format }

        // Standard error shows warnings and worse, or everything asked for with --log-level.
        let stderrLevel = options.logLevel ?? max(configuration.level, .warning)
        let sinks: [any LogSink] = [
            StandardErrorSink(minimumLevel: stderrLevel),
            RotatingFileSink(path: options.logFile ?? StatePaths.logFile, minimumLevel: configuration.level),
        ]
        let hasher = LogHasher.persistent(at: StatePaths.logHashKey)
        LoggingSystem.bootstrap { label in configuration.handler(label: label, sinks: sinks, hasher: hasher) }
        var logger = Logger(label: "vigil")
        logger.logLevel = min(configuration.level, stderrLevel)
        return (settings, logger)
    }
}

extension Vigil {
    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Vigil's log file.", subcommands: [Path.self, Clear.self])
    }
}

extension Vigil.Log {
    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the path of the log file.")
        @OptionGroup var logOptions: LogOptions
        func run() throws { print(logOptions.logFile ?? StatePaths.logFile) }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete the log file and its rotated copies.")
        @OptionGroup var logOptions: LogOptions
        func run() throws {
            let path = logOptions.logFile ?? StatePaths.logFile
            var removed = 0
            for file in RotatingFileSink.files(for: path) where FileManager.default.fileExists(atPath: file) {
                do {
                    try FileManager.default.removeItem(atPath: file)
                    removed += 1
                } catch {
                    ExitStatus.fail("cannot delete \(file): \(error.localizedDescription)")
                }
            }
            print("removed \(removed) log file\(removed == 1 ? "" : "s") (\(path))")
        }
    }
}
