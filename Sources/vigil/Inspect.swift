import ArgumentParser
import Foundation
import VigilCertificates

extension Vigil {
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Inspect a certificate chain.")
        func run() async throws {}
    }
}
