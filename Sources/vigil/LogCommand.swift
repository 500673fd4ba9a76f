import ArgumentParser
import FoundationEssentials
import Glibc
import VigilCommandLine
import VigilLogging

extension Vigil {
    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "log", abstract: "Vigil's log file.", subcommands: [Path.self, Clear.self])
    }
}

extension Vigil.Log {
    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "path", abstract: "Print the path of the log file.",
            usage: CommandHelp.usage("log path"),
            discussion: CommandHelp.discussion("log path"))
        @OptionGroup(title: "Log options") var logOptions: LogOptions
        func run() throws { print(logOptions.logFile ?? StatePaths.logFile) }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear", abstract: "Delete the log file and its rotated copies.",
            usage: CommandHelp.usage("log clear"),
            discussion: CommandHelp.discussion("log clear"))
        @OptionGroup(title: "Log options") var logOptions: LogOptions
        func run() throws {
            let path = logOptions.logFile ?? StatePaths.logFile
            var removed = 0
            for file in RotatingFileSink.files(for: path) where FileManager.default.fileExists(atPath: file) {
                guard unlink(file) == 0 else { throw CommandFailure("cannot delete \(file): \(String(cString: strerror(errno))).") }
                removed += 1
            }
            print("removed \(removed) log file\(removed == 1 ? "" : "s") (\(path))")
        }
    }
}
