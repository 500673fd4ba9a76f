import Foundation

// libFuzzer over one of ParserTarget's parsers, chosen by VIGIL_FUZZ_TARGET (scripts/fuzz.sh runs
// each in turn). ParserTargets.swift is the file the replay tests compile too.

let target: ParserTarget = {
    let name = ProcessInfo.processInfo.environment["VIGIL_FUZZ_TARGET"] ?? ""
    guard let target = ParserTarget(rawValue: name) else {
        FileHandle.standardError.write(Data("VIGIL_FUZZ_TARGET must be one of: \(ParserTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    return target
}()

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

@_cdecl("FuzzParsers_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    _ = target
    return runFuzzerDriver(&count, &arguments, fuzzOne)
}

/// The async parsers run to completion on the cooperative pool while libFuzzer's thread waits.
final class Done: @unchecked Sendable {
    let semaphore = DispatchSemaphore(value: 0)
}

/// libFuzzer's own entry point, for a link that takes libFuzzer's `main` (a debug build) rather
/// than this module's.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    fuzzOne(data, count)
}

func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let done = Done()
    Task {
        _ = await target.run(bytes)
        done.semaphore.signal()
    }
    done.semaphore.wait()
    return 0
}
