// swift-tools-version: 6.1
// Vigil: security and certificate inspection for file-sync cloud clients (Linux).
// Module layout and dependency direction: docs/architecture.md.
import PackageDescription

#if canImport(Glibc)
    import Glibc
#endif

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// How the two executables are linked in release builds: by lld, with the relative relocations
// packed (DT_RELR, glibc 2.36 and later: some 64,000 of them become a 12 KB bitmap the loader
// walks). Every command starts sooner for it (perf stat, 200 runs of `vigil --version`: 5.32 ->
// 4.70 ms). The exported symbols stay (0.2 ms more to start without them): they are the names a
// crash's backtrace shows from the stripped binary `make install` installs.
// A C library older than 2.36 cannot load DT_RELR, so there the relocations stay as they were;
// a binary built here runs on a C library as new as the one it was built on (make install builds
// on the machine it installs to).
let packsRelocations: Bool = {
    #if canImport(Glibc)
        var text = [CChar](repeating: 0, count: 64)  // "glibc 2.36"
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0 else { return false }
        let version = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: " ").last ?? ""
        let parts = version.split(separator: ".").compactMap { Int($0) }
        return parts.count >= 2 && (parts[0], parts[1]) >= (2, 36)
    #else
        return false
    #endif
}()
let releaseLinking: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld"] + (packsRelocations ? ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] : []),
        .when(configuration: .release)
    )
]

// Debian's multiarch directory, where GLib keeps glibconfig.h.
#if arch(arm64)
    let debianMultiarch = "aarch64-linux-gnu"
#else
    let debianMultiarch = "x86_64-linux-gnu"
#endif

let package = Package(
    name: "vigil",
    // What an embedder uses: certificates and trust, the HTTP client that judges every
    // handshake, authentication methods, the keyring, the store, account setup and check, the
    // masking log handler, settings, and the host simulator to test a client against. The rest
    // (VigilErrors, VigilRules and VigilText come with the modules whose API names them; VigilPaths,
    // VigilThreads, VigilCommandLine and the suite) is this package's own.
    products: [
        .library(name: "VigilCertificates", targets: ["VigilCertificates"]),
        .library(name: "VigilHTTP", targets: ["VigilHTTP"]),
        .library(name: "VigilAuth", targets: ["VigilAuth"]),
        .library(name: "VigilSecrets", targets: ["VigilSecrets"]),
        .library(name: "VigilStore", targets: ["VigilStore"]),
        .library(name: "VigilAccounts", targets: ["VigilAccounts"]),
        .library(name: "VigilServerCheck", targets: ["VigilServerCheck"]),
        .library(name: "VigilLogging", targets: ["VigilLogging"]),
        .library(name: "VigilSettings", targets: ["VigilSettings"]),
        .library(name: "VigilRules", targets: ["VigilRules"]),
        .library(name: "VigilErrors", targets: ["VigilErrors"]),
        .library(name: "VigilText", targets: ["VigilText"]),
        .library(name: "VigilSimulator", targets: ["VigilSimulator"]),
        .library(name: "VigilSimulatorTesting", targets: ["VigilSimulatorTesting"]),
        .executable(name: "vigil", targets: ["vigil"]),
        .executable(name: "vigil-simulator", targets: ["vigil-simulator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // No default traits: the JSON file provider imports Foundation (and ICU's data); Vigil reads its
        // settings files itself (VigilSettings) and uses only the environment provider.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    ],
    targets: [
        // System SQLite (libsqlite3-dev); used by VigilStore only.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // System OpenSSL; used by VigilCertificates only.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // A library loaded on first use, its functions resolved from one typed table (CCurl, CSecret).
        .target(name: "CLazyLibrary"),
        // System libcurl (OpenSSL backend), loaded on first use (dlopen) so that commands without a
        // transfer never map it and its dependencies: C wrappers over one table of libcurl's
        // functions typed by curl.h's own prototypes, and the TLS hooks in OpenSSL's callbacks.
        // libcurl is not linked; OpenSSL is. Used by VigilHTTP only.
        .target(
            name: "CCurl",
            dependencies: ["CLazyLibrary"],
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        // Vigil's certificate checks written in C over system OpenSSL, each in a .c file of its own:
        // OCSP (ocsp.c), CRLs (crl.c), must-staple (must_staple.c), certificate policies (policies.c),
        // client identities from PKCS#12 or PEM (identity.c) and from a PKCS#11 token (token.c). Its
        // header names OpenSSL's types by struct tag only. Used by VigilCertificates only.
        .target(
            name: "CVigilPKI",
            // COpenSSL: the same OpenSSL headers and library as the Swift side (pkg-config's flags).
            dependencies: ["COpenSSL"],
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        // System OpenSSL for the host simulator's own test CA (revocation scenarios mint their
        // certificates, CRLs and OCSP answers at run time); used by VigilSimulator only.
        .systemLibrary(
            name: "CSimulatorPKI",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // The certificate rule language's parser: only VigilErrors, so that settings validate rules
        // and certificates evaluate them.
        .target(
            name: "VigilRules",
            dependencies: ["VigilErrors"],
            swiftSettings: strictSettings
        ),
        // The certificate model: parsing (OpenSSL), the summary, path building and validation with
        // policies and profiles, revocation evaluation, and the approval rule.
        .target(
            name: "VigilCertificates",
            dependencies: ["VigilErrors", "VigilText", "COpenSSL", "CVigilPKI", "VigilRules"],
            swiftSettings: strictSettings
        ),
        // XDG base directories, private files and path names, in one place (no dependencies).
        .target(name: "VigilPaths", swiftSettings: strictSettings),
        // Serial queues of their own for blocking calls (keyring, database) made from async code;
        // threads of its own; steps an interrupt waits for.
        .target(name: "VigilThreads", dependencies: ["VigilErrors", "CVigilSystem"], swiftSettings: strictSettings),
        // What Swift's Glibc module does not show (a thread's name, the main thread) and the system calls
        // Vigil makes in C (a detached spawn, a limited run with a session keyring of its own, a secret read at the terminal, loopback up, who owns a namespace; the client cell's seccomp filter in cell_filter.c).
        .target(name: "CVigilSystem"),
        // The one error protocol (VigilError) every module's error struct conforms to.
        .target(name: "VigilErrors", swiftSettings: strictSettings),
        // Text without Foundation: JSON values, trimming, percent-encoding, the standard streams.
        .target(name: "VigilText", swiftSettings: strictSettings),
        // Settings from the environment, the user's file, the managed file and defaults: the
        // catalogue, validation, administrator locks.
        .target(
            name: "VigilSettings",
            dependencies: ["VigilErrors", "VigilText", "VigilRules", "VigilPaths", .product(name: "Configuration", package: "swift-configuration")],
            swiftSettings: strictSettings
        ),
        // Privacy-masking swift-log handler, writers, HTTP redaction.
        .target(
            name: "VigilLogging",
            dependencies: [
                "VigilErrors", "VigilText",
                "VigilPaths",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // The HTTP client (libcurl): the connection's verdict inside the handshake, proxies, TLS
        // probes, revocation fetching, cookies.
        .target(
            name: "VigilHTTP",
            dependencies: [
                "VigilErrors", "VigilText", "VigilThreads",
                "VigilCertificates", "VigilLogging", "VigilPaths", "CCurl", "CVigilSystem",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // A server's own setup, outside in (`vigil server check`): the TLS versions and suites it accepts
        // (by handshakes, and Vigil's own ClientHello for what OpenSSL lacks), the HTTP hardening, a
        // cloud's setup and version against dated data, and the findings and grade. Never sends a credential.
        .target(
            name: "VigilServerCheck",
            dependencies: ["VigilErrors", "VigilHTTP", "VigilCertificates", "VigilLogging"],
            swiftSettings: strictSettings
        ),
        // Accounts: setup with certificate review, check, login again, move, logout and removal, tokens and
        // their refresh, the approvals' audit.
        .target(
            name: "VigilAccounts",
            dependencies: [
                "VigilErrors", "VigilText", "VigilThreads", "VigilAuth", "VigilHTTP", "VigilCertificates", "VigilStore", "VigilSecrets", "VigilLogging",
                "VigilSettings", "VigilRules", "VigilPaths",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Accounts, approved certificates and their audit trail, in SQLite (the system library, its C API).
        .target(
            name: "VigilStore",
            dependencies: [
                "VigilErrors", "VigilText", "VigilCertificates", "VigilPaths", "VigilThreads", "CSQLite",
            ],
            swiftSettings: strictSettings
        ),
        // Authentication: detection and ranking, Basic, OAuth2 with PKCE, OpenID Connect, Nextcloud's Login Flow v2.
        .target(
            name: "VigilAuth",
            dependencies: [
                "VigilErrors", "VigilText", "VigilThreads", "VigilHTTP", "VigilLogging", "VigilSecrets", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strictSettings
        ),
        // libsecret, loaded on first use (dlopen): not linked, so commands without a secret never
        // map GLib. Compiled against libsecret's and GLib's headers (libsecret-1-dev), so that its
        // table of functions is typed by their own prototypes; only their include paths are used.
        .target(
            name: "CSecret",
            dependencies: ["CLazyLibrary"],
            cSettings: [
                .unsafeFlags([
                    "-I/usr/include/libsecret-1", "-I/usr/include/glib-2.0", "-I/usr/lib/\(debianMultiarch)/glib-2.0/include",
                ])
            ]
        ),
        // Secrets in the Secret Service keyring (libsecret, through CSecret); below everything that stores one.
        .target(
            name: "VigilSecrets",
            dependencies: ["VigilErrors", "VigilThreads", "CSecret"],
            swiftSettings: strictSettings
        ),
        // A real HTTPS server impersonating a cloud server. It must not import the client's trust
        // or auth code (VigilCertificates, VigilHTTP, VigilAuth): it is an independent check on them.
        .target(
            name: "VigilSimulator",
            dependencies: [
                "VigilErrors",
                "CSimulatorPKI",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // A test client for the simulated cloud with two transports, as Hummingbird's testing offers
        // .router and .live: in process (the responder answers, journalled as a listener would; no
        // port) and live (real listeners, HTTPS verified against the simulator's CA, over NIO).
        // For Vigil's tests and for embedders testing their own clients.
        .target(
            name: "VigilSimulatorTesting",
            dependencies: [
                "VigilSimulator", "VigilErrors", "VigilText",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // `vigil simulate`: the client (VigilAccounts's account setup) held to every simulator scenario.
        // The one module that sees both sides; the simulator itself still imports no client code.
        .target(
            name: "VigilSuite",
            dependencies: [
                "VigilErrors", "VigilAccounts", "VigilSimulator", "VigilCertificates", "VigilHTTP", "VigilStore", "VigilSecrets",
                "VigilSettings", "VigilLogging", "VigilAuth", "VigilPaths", "VigilThreads", "CVigilSystem", .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            swiftSettings: strictSettings
        ),
        // What both executables share: exit codes, logging and settings start-up, JSON output,
        // data locations, and the simulator commands' options (declared once for both).
        .target(
            name: "VigilCommandLine",
            dependencies: [
                "VigilErrors", "VigilText", "VigilSettings", "VigilLogging", "VigilPaths", "VigilThreads",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // The client, the `vigil` command. It carries no server code: `vigil simulator` and `vigil simulate` are parsed
        // here and played by vigil-simulator, found beside it (docs/architecture.md).
        .executableTarget(
            name: "vigil",
            dependencies: [
                "VigilText",
                "VigilServerCheck",
                "VigilCertificates",
                "VigilHTTP",
                "VigilStore",
                "VigilAccounts",
                "VigilAuth",
                "VigilSecrets",
                "VigilSettings",
                "VigilLogging",
                "VigilRules",
                "VigilPaths",
                "VigilThreads",
                "VigilCommandLine",
                "CVigilSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings,
            linkerSettings: releaseLinking
        ),
        // The host simulator and the security suite (Hummingbird, SwiftNIO, BoringSSL).
        .executableTarget(
            name: "vigil-simulator",
            dependencies: [
                "VigilAccounts", "VigilSecrets", "VigilSettings", "VigilLogging", "VigilPaths", "VigilSimulator", "VigilSuite",
                "VigilCommandLine", "VigilText",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings,
            linkerSettings: releaseLinking
        ),
        // Helpers for tests only: paths, a real openssl s_server on loopback, running the CLI.
        .target(
            name: "VigilTestSupport",
            dependencies: ["VigilSimulator", "VigilSimulatorTesting"],
            path: "Tests/VigilTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilCertificatesTests",
            dependencies: ["VigilCertificates", "CVigilPKI", "VigilRules", "VigilTestSupport"],
            swiftSettings: strictSettings
        ),
        // Replays the committed fuzz corpus (Fuzz/corpus/) through the parsers make fuzz searches.
        .testTarget(
            name: "VigilFuzzTests",
            dependencies: [
                "VigilAuth", "VigilAccounts", "VigilHTTP", "VigilRules", "VigilSettings", "VigilSimulator", "VigilCertificates",
                "VigilTestSupport", "VigilText",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilServerCheckTests",
            dependencies: ["VigilServerCheck", "VigilHTTP"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilSettingsTests",
            dependencies: ["VigilSettings", "VigilTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilLoggingTests",
            dependencies: [
                "VigilLogging", "VigilErrors", "VigilTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilAuthTests",
            dependencies: [
                "VigilAuth", "VigilHTTP", "VigilCertificates", "VigilSecrets", "VigilTestSupport", "VigilSimulator", "CVigilSystem",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilTextTests",
            dependencies: ["VigilText", "VigilPaths"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilStoreTests",
            dependencies: ["VigilStore", "VigilSettings", "VigilCertificates", "VigilHTTP", "VigilTestSupport", "VigilSimulator", "VigilErrors"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilAccountsTests",
            dependencies: ["VigilAccounts", "VigilAuth", "VigilCertificates", "VigilHTTP", "VigilSecrets", "VigilStore", "VigilSimulator", "VigilTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilSecretsTests",
            dependencies: ["VigilSecrets", "VigilTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilSimulatorTests",
            dependencies: [
                "VigilSimulator", "VigilSimulatorTesting", "VigilTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilHTTPTests",
            dependencies: ["VigilHTTP", "VigilCertificates", "VigilTestSupport", "VigilSimulator"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilSuiteTests",
            dependencies: [
                "VigilSuite", "VigilSimulator", "VigilAccounts", "VigilHTTP", "VigilSecrets", "VigilStore", "VigilSettings", "VigilTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VigilCLITests",
            dependencies: ["VigilTestSupport", "VigilSimulator"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
