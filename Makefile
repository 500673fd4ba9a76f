# Vigil: the README's two commands are the contract.
#   make demo   installs missing Debian packages, builds, runs the main job on loopback
#   make test   installs missing Debian packages, builds, runs x509-limbo and the Swift tests
SWIFT ?= swift
VIGIL := .build/debug/vigil

# vigil simulate: the CI security suite (JUnit in results/simulate.xml).
simulate: build
	@scripts/simulate-check.sh $(VIGIL)

.PHONY: all bootstrap build demo test simulate install limbo bench bench-simulator bench-account-check fuzz testcerts man clean

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	$(SWIFT) build --product vigil

demo: build
	@scripts/demo.sh $(VIGIL)

# limbo runs before the Swift tests so that swift test's summary is the last line. The tests run
# in a private D-Bus session with a GNOME Keyring of their own (the keyring tests need a real
# Secret Service; scripts/keyring-session.sh).
test: bootstrap
	$(SWIFT) build --build-tests
	@scripts/limbo.sh $(VIGIL)
	@scripts/simulate-check.sh $(VIGIL)
	dbus-run-session -- scripts/keyring-session.sh $(SWIFT) test

limbo: build
	@scripts/limbo.sh $(VIGIL)

bench: bootstrap
	@scripts/bench-certificates.sh

bench-simulator: bootstrap
	@scripts/bench-simulator.sh

# vigil account check of a Basic account against curl's same requests (release build, hyperfine).
bench-account-check: bootstrap
	@scripts/bench-account-check.sh

# libFuzzer + AddressSanitizer on certificate parsing, summaries and trust (FUZZ_SECONDS, default 120).
fuzz: bootstrap
	@scripts/fuzz.sh

testcerts:
	testcerts/generate.sh

# Man pages from the command definitions (swift-argument-parser's generate-manual plugin).
man: bootstrap
	$(SWIFT) package --disable-sandbox plugin generate-manual --multi-page
	mkdir -p docs/man && cp .build/plugins/GenerateManual/outputs/vigil/*.1 docs/man/

# Installs vigil with its data (fixtures, test PKI) so that it works from any directory:
# PREFIX/bin/vigil and PREFIX/share/vigil/{mitm-fixtures,testcerts}.
PREFIX ?= /usr/local
install:
	$(SWIFT) build -c release --product vigil
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/vigil
	install -m 0755 .build/release/vigil $(DESTDIR)$(PREFIX)/bin/vigil
	rm -rf $(DESTDIR)$(PREFIX)/share/vigil/mitm-fixtures $(DESTDIR)$(PREFIX)/share/vigil/testcerts
	cp -R mitm-fixtures testcerts $(DESTDIR)$(PREFIX)/share/vigil/

clean:
	rm -rf .build results Benchmarks/.build Fuzz/.build
