# Vigil: the README's two commands are the contract.
#   make demo   installs missing Debian packages, builds, runs the main job on loopback
#   make test   installs missing Debian packages, builds, runs x509-limbo and the Swift tests
SWIFT ?= swift
VIGIL := .build/debug/vigil

# vigil simulate: the CI security suite (JUnit in results/simulate.xml).
simulate: build
	@scripts/simulate-check.sh $(VIGIL)

.PHONY: all release bootstrap build demo test simulate install uninstall install-check deb deb-check limbo bench bench-simulator bench-account-check fuzz format testcerts man clean

# `make`, as yourself: the release build and its completion scripts, which `sudo make install`
# then copies (install builds nothing: package manifests and plugins never run as root).
all: release

release: bootstrap
	@SWIFT=$(SWIFT) scripts/build.sh release
	mkdir -p .build/release/completions
	.build/release/vigil --generate-completion-script bash > .build/release/completions/vigil.bash
	.build/release/vigil --generate-completion-script zsh > .build/release/completions/_vigil
	.build/release/vigil --generate-completion-script fish > .build/release/completions/vigil.fish

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	@SWIFT=$(SWIFT) scripts/build.sh debug

demo: build
	@scripts/demo.sh $(VIGIL)

# limbo runs before the Swift tests so that swift test's summary is the last line. The tests run
# in a private D-Bus session with a GNOME Keyring of their own (the keyring tests need a real
# Secret Service; scripts/keyring-session.sh).
test: bootstrap
	@scripts/code-health.sh
	$(SWIFT) build --build-tests
	@scripts/limbo.sh $(VIGIL)
	@scripts/simulate-check.sh $(VIGIL)
	dbus-run-session -- scripts/keyring-session.sh $(SWIFT) test

limbo: build
	@scripts/limbo.sh $(VIGIL)

bench: bootstrap
	@scripts/bench-certificates.sh
	@MTLS=1 scripts/bench-account-check.sh
	@PROXY=1 scripts/bench-account-check.sh

bench-simulator: bootstrap
	@scripts/bench-simulator.sh

# vigil account check of a Basic account against curl's same requests (release build, hyperfine).
bench-account-check: bootstrap
	@scripts/bench-account-check.sh

# libFuzzer on certificates (with AddressSanitizer) and every parser of hostile input (FUZZ_SECONDS each, default 30).
fuzz: bootstrap
	@scripts/fuzz.sh

# Formats the tree with swift-format and the committed .swift-format (make test lints it).
format:
	swift format format -i -r Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources Benchmarks/Package.swift Benchmarks/Benchmarks

testcerts:
	testcerts/generate.sh

# Man pages from the command definitions (swift-argument-parser's generate-manual plugin).
man: bootstrap
	$(SWIFT) package --disable-sandbox plugin generate-manual --multi-page
	mkdir -p docs/man && rm -f docs/man/*.1 && cp .build/plugins/GenerateManual/outputs/vigil/*.1 docs/man/
	scripts/man-fix.py docs/man/*.1

# Installs what `make` built (the release build of vigil, its man pages, bash/zsh/fish completions)
# and its data (fixtures, server check's TLS profiles and advisories, the test PKI: public test material the simulator serves, never to be
# trusted) so that it works from any directory. It builds nothing: run `make` first, as yourself.
#   PREFIX/bin/vigil and vigil-simulator (stripped), PREFIX/share/man/man1/vigil*.1, PREFIX/share/vigil/{mitm-fixtures,testcerts,server-data},
#   PREFIX/share/bash-completion/completions/vigil, PREFIX/share/zsh/site-functions/_vigil,
#   PREFIX/share/fish/vendor_completions.d/vigil.fish, and the daily check's systemd user units in
#   PREFIX/lib/systemd/user (systemd looks in /usr/local/lib/systemd/user too), never enabled:
#   systemctl --user daemon-reload && systemctl --user enable --now vigil-check.timer
PREFIX ?= /usr/local
SHARE := $(DESTDIR)$(PREFIX)/share
RELEASE_FILES := .build/release/vigil .build/release/vigil-simulator .build/release/completions/vigil.bash \
	.build/release/completions/_vigil .build/release/completions/vigil.fish
install:
	@for file in $(RELEASE_FILES); do [ -f $$file ] || { echo "make install: $$file is missing: run make first, as yourself (not root); make install only copies what it built" >&2; exit 2; }; done
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/vigil $(SHARE)/man/man1 $(SHARE)/bash-completion/completions \
		$(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d
	install -m 0755 -s .build/release/vigil $(DESTDIR)$(PREFIX)/bin/vigil
	install -m 0755 -s .build/release/vigil-simulator $(DESTDIR)$(PREFIX)/bin/vigil-simulator
	rm -rf $(SHARE)/vigil/mitm-fixtures $(SHARE)/vigil/testcerts $(SHARE)/vigil/server-data
	cp -R mitm-fixtures testcerts server-data $(SHARE)/vigil/
	install -m 0644 docs/man/*.1 $(SHARE)/man/man1/
	install -m 0644 .build/release/completions/vigil.bash $(SHARE)/bash-completion/completions/vigil
	install -m 0644 .build/release/completions/_vigil $(SHARE)/zsh/site-functions/_vigil
	install -m 0644 .build/release/completions/vigil.fish $(SHARE)/fish/vendor_completions.d/vigil.fish
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/user
	sed 's|/usr/bin/vigil|$(PREFIX)/bin/vigil|g' packaging/systemd/vigil-check.service > $(DESTDIR)$(PREFIX)/lib/systemd/user/vigil-check.service
	install -m 0644 packaging/systemd/vigil-check.timer $(DESTDIR)$(PREFIX)/lib/systemd/user/vigil-check.timer
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/systemd/user/vigil-check.service

# Removes exactly what install put there (accounts, approvals, settings and logs stay: they are
# the user's, under the XDG directories).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/vigil $(DESTDIR)$(PREFIX)/bin/vigil-simulator $(SHARE)/bash-completion/completions/vigil $(SHARE)/zsh/site-functions/_vigil \
		$(SHARE)/fish/vendor_completions.d/vigil.fish $(DESTDIR)$(PREFIX)/lib/systemd/user/vigil-check.service \
		$(DESTDIR)$(PREFIX)/lib/systemd/user/vigil-check.timer
	rm -f $(addprefix $(SHARE)/man/man1/,$(notdir $(wildcard docs/man/*.1)))
	rm -rf $(SHARE)/vigil

# The Debian package, results/vigil_VERSION_ARCH.deb, from the release build with Debian's own
# tools (scripts/build-deb.sh: dpkg-shlibdeps, dpkg-deb, lintian with no error or warning).
deb: bootstrap
	@scripts/build-deb.sh

# The package proved on a Debian 12 root without Swift (scripts/deb-check.sh): installed with
# apt-get, used (inspect, account add in a private keyring, simulate), purged without a trace.
deb-check: deb
	@scripts/deb-check.sh

# What CI adds to make test: the release build, installed into a scratch DESTDIR and used from /,
# then uninstalled (scripts/install-check.sh).
install-check: bootstrap
	@scripts/install-check.sh

clean:
	rm -rf .build results Benchmarks/.build Fuzz/.build
