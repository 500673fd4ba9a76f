import ArgumentParser
import FoundationEssentials
import Glibc
import VigilAccounts
import VigilCommandLine
import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilSettings
import VigilText
import VigilThreads

extension Vigil {
    /// `vigil proxy which|login|logout|list`: which proxy a URL goes through, and the passwords of
    /// proxies that ask who you are (docs/proxies.md).
    struct ProxyCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "proxy",
            abstract: "Which proxy a URL goes through, and the passwords of proxies that ask who you are.",
            discussion: """
                Settings: connection.proxy and connection.proxy-autoconfig-url (vigil config explain). Passwords live in the keyring only.

                Examples:
                  vigil proxy which https://cloud.example.com/
                  vigil proxy login http://proxy.corp.example:3128 --user alice
                  vigil proxy list
                  vigil proxy logout http://proxy.corp.example:3128

                More: docs/proxies.md (PAC files, Kerberos, Squid, inspecting proxies).
                """,
            subcommands: [Which.self, Login.self, Logout.self, List.self]
        )

        struct Which: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Print the proxy chosen for URL and where the choice came from.",
                usage: CommandHelp.usage("proxy which"),
                discussion: CommandHelp.discussion(
                    "proxy which",
                    "Exit codes: 0 decided, 2 the choice cannot be made (a PAC file that cannot be loaded or run), 64 usage error."))

            @Argument(help: "The URL, https://HOST[:PORT][/PATH] or http://...") var url: String
            @Flag(help: "Print the answer as JSON: {\"url\", \"proxies\", \"source\", \"autoconfigAnswer\"}.") var json = false
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func validate() throws {
                guard (try? ProxyConfiguration().routeCheck(url)) != nil else {
                    throw ValidationError("\(SafeText.escaped(url)) is not an absolute http(s) URL.")
                }
            }

            struct Answer: Encodable {
                var url: String
                var proxies: [String]
                var source: String
                var autoconfigAnswer: String?
            }

            func run() async throws {
                let (settings, _) = try CommandContext.start(logOptions)
                let proxy = ProxyConfiguration(settings: settings, credentials: nil)
                let target = url
                do {
                    let route = try await proxy.choosing(for: target)
                    let answer = Answer(url: target, proxies: route.shown, source: route.source, autoconfigAnswer: route.autoconfigAnswer)
                    if json {
                        print(try JSONOutput.text(answer))
                    } else {
                        print(SafeText.escaped(route.shown.joined(separator: ", then ")))
                        print("  chosen by: \(SafeText.escaped(route.source))")
                        if let given = route.autoconfigAnswer { print("  the PAC file answered: \(SafeText.escaped(given))") }
                    }
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct Login: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Keep a proxy's password in the keyring, bound to that proxy's scheme, host and port.",
                usage: CommandHelp.usage("proxy login"),
                discussion: CommandHelp.discussion(
                    "proxy login",
                    """
                    The password is sent only when that proxy answers 407, by the strongest scheme it offers \
                    (Negotiate, NTLM, Digest, Basic); never to another proxy, never before it asks, never to a server. \
                    Basic over a plain-http proxy shows the password to the network: it is used only with --allow-clear-text.

                    Exit codes: 0 kept, 2 the keyring cannot be used, or no password was given (none on standard input, or no terminal to type it at), 64 usage error.
                    """))

            @Argument(help: "The proxy, http://HOST:PORT, https://HOST:PORT or socks5h://HOST:PORT.") var proxy: String
            @Option(help: "The user name the proxy knows you by.") var user: String
            @Flag(help: "Read the password from standard input instead of the terminal.") var passwordStdin = false
            @Flag(
                inversion: .prefixedNo,
                help:
                    "Agree that the password may be sent where the network can read it: Basic over a plain-http proxy, SOCKS5's login (--no-allow-clear-text withdraws it; without either, a login again for the same user keeps the earlier answer)."
            )
            var allowClearText: Bool?
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func validate() throws {
                guard ProxyIdentity(url: proxy) != nil, !proxy.contains("@") else {
                    throw ValidationError("\(SafeText.escaped(proxy)) is not a proxy URL such as http://proxy.example:3128 (no user information in it).")
                }
                guard !user.isEmpty, !user.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw ValidationError("--user must be a name without control characters.")
                }
            }

            func run() async throws {
                _ = try CommandContext.start(logOptions)
                guard let identity = ProxyIdentity(url: proxy) else { throw ExitCode(ExitStatus.usage) }
                let password: String
                if passwordStdin {
                    guard let text = SecretInput.fromStandardInput() else {
                        throw CommandFailure(
                            "no password on standard input; nothing was kept. Pipe it in: printf '%s' \"$PASSWORD\" | vigil proxy login PROXY --user NAME --password-stdin"
                        )
                    }
                    password = text
                } else {
                    guard isatty(STDIN_FILENO) == 1, let typed = SecretInput.fromTerminal(prompt: "Password for \(user) at the proxy \(identity): ") else {
                        throw CommandFailure("no password: give it at the terminal or with --password-stdin.")
                    }
                    password = typed
                }
                guard !password.isEmpty else { throw CommandFailure("the password is empty; nothing was kept. Give the password the proxy knows you by.") }
                let credentials = ProxyCredentials(secrets: KeyringSecretStore())
                let user = self.user
                // A login again (a changed password) keeps the user's earlier consent unless told otherwise.
                let earlier = try? await BlockingQueue.keyring.run { try credentials.credential(for: identity) }
                let keptConsent = allowClearText == nil && earlier?.user == user && earlier?.allowsClearText == true
                let allowClearText = self.allowClearText ?? keptConsent
                let credential = ProxyCredential(user: user, password: password, allowsClearText: allowClearText)
                do {
                    try await BlockingQueue.keyring.run { try credentials.store(credential, for: identity) }
                } catch {
                    throw CommandFailure(error)
                }
                print("Kept the password of \(SafeText.escaped(user)) for the proxy \(SafeText.escaped(identity.description)) in the keyring.")
                if keptConsent {
                    print("Your earlier agreement to send it in clear text (--allow-clear-text) is kept; --no-allow-clear-text withdraws it.")
                }
                if identity.isPlain && !allowClearText {
                    print("It will not be sent by Basic (clear text) to this plain proxy; only by Negotiate, NTLM or Digest.")
                }
            }
        }

        struct Logout: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove the password kept for a proxy.", usage: CommandHelp.usage("proxy logout"),
                discussion: CommandHelp.discussion("proxy logout"))
            @Argument(help: "The proxy, as given to vigil proxy login.") var proxy: String
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func validate() throws {
                guard ProxyIdentity(url: proxy) != nil else { throw ValidationError("\(SafeText.escaped(proxy)) is not a proxy URL.") }
            }

            func run() async throws {
                _ = try CommandContext.start(logOptions)
                guard let identity = ProxyIdentity(url: proxy) else { throw ExitCode(ExitStatus.usage) }
                let credentials = ProxyCredentials(secrets: KeyringSecretStore())
                do {
                    let removed = try await BlockingQueue.keyring.run { try credentials.remove(identity) }
                    print(
                        SafeText.escaped(removed ? "Removed the password kept for the proxy \(identity)." : "No password was kept for the proxy \(identity)."))
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List the proxies with a kept password (never the password).", usage: CommandHelp.usage("proxy list"),
                discussion: CommandHelp.discussion("proxy list"))
            @Flag(help: "Print the list as JSON: [{\"proxy\", \"user\", \"allowsClearText\"}].") var json = false
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            struct Row: Encodable {
                var proxy: String
                var user: String
                var allowsClearText: Bool
            }

            func run() async throws {
                _ = try CommandContext.start(logOptions)
                let credentials = ProxyCredentials(secrets: KeyringSecretStore())
                do {
                    let entries = try await BlockingQueue.keyring.run { try credentials.list() }
                    if json {
                        print(try JSONOutput.text(entries.map { Row(proxy: $0.proxy, user: $0.user, allowsClearText: $0.allowsClearText) }))
                    } else if entries.isEmpty {
                        print("No proxy password is kept.")
                    } else {
                        for entry in entries {
                            print(
                                "\(SafeText.escaped(entry.proxy))  user \(SafeText.escaped(entry.user))\(entry.allowsClearText ? "  (clear text allowed)" : "")"
                            )
                        }
                    }
                } catch {
                    throw CommandFailure(error)
                }
            }
        }
    }
}
