import ArgumentParser
import FoundationEssentials
import Glibc
import VigilCertificates
import VigilCommandLine
import VigilLogging
import VigilStore

extension Vigil.Certificates {
    /// `vigil certificates show ID`: an approval and the certificate as the user reviewed it.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show an approval and the certificate as it was reviewed (the full summary).",
            usage: CommandHelp.usage("certificates show"),
            discussion: CommandHelp.discussion(
                "certificates show",
                "Judged now against --ca-file (or the system store) for the approval's host. Exit codes: 0 shown, 2 unknown id or unreadable database.")
        )
        @Argument(help: ArgumentHelp("The approval's id (see vigil certificates list --all).", valueName: "approval")) var id: Int64
        @Option(name: .customLong("ca-file"), help: "Judge the certificate against only these CAs (repeatable).", completion: Completions.file) var caFiles:
            [String] = []
        @Flag(help: "JSON instead of text.") var json = false
        @OptionGroup var store: StoreOptions
        @OptionGroup(title: "Log options") var logOptions: LogOptions

        func run() throws {
            let (settings, _) = try CommandContext.start(logOptions)
            do {
                guard let approval = try CertificateApprovals(database: store.open()).list(includingRevoked: true).first(where: { $0.id == id }) else {
                    throw CommandFailure("No approval with id \(id); see vigil certificates list --all.")
                }
                let state = approval.revokedAt.map { "revoked \(ISOTime.string($0)): \(approval.revocationReason ?? "")" } ?? "active"
                let certificate = try approval.der.map { try Certificate(derEncoded: [UInt8]($0)) }
                if json {
                    print(try JSONOutput.text(Shown(approval: approval, certificate: certificate.map { $0.summary() })))
                    return
                }
                print(
                    SafeText.escaped("\(id)  \(approval.host):\(approval.port)  \(approval.sha256)  approved \(ISOTime.string(approval.approvedAt))  \(state)"))
                guard let certificate else {
                    print("the certificate itself was not kept (approved before Vigil kept certificates)")
                    return
                }
                let peer = PeerName(host: approval.host)
                print(
                    try StoredChainReview.text(
                        [certificate], kind: "approval", label: "\(approval.host):\(approval.port)", peer: peer, caFiles: caFiles, settings: settings,
                        approved: approval.isActive),
                    terminator: "")
            } catch {
                throw CommandFailure(error)
            }
        }

        struct Shown: Encodable {
            var approval: ApprovedCertificate
            var certificate: CertificateSummary?
        }
    }
}
