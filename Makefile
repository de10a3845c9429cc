# MiDiccio: `make run` starts the MiDiccio web app on your default library, `make test` runs the
# tests, `make bench` prints the benchmark figures. Each installs missing system
# packages first (with apt-get when run as root; otherwise it says what to install).

SWIFT ?= swift
# lighttpd and lighttpd-mod-webdav: the real WebDAV server the tests sync through
# (Debian 12 ships mod_webdav in its own package). nginx and libnginx-mod-http-dav-ext: a
# second real WebDAV server, set up as people commonly do (Tests/WebDAV/nginx.sh). nodejs: the web tests run
# `node --check` on the page's script (Tests/MiDiccioWebTests/PageFileTests.swift).
# sqlite3: the process tests check libraries with the shell's `PRAGMA integrity_check`.
# libsqlite3-dev: its static library is linked into each binary (README, "Start-up").
# python3: the fake Google Drive and fake CloudKit the tests sync through (Tests/GoogleDrive,
# Tests/CloudKit; standard library only).
# libssl-dev: OpenSSL's libcrypto, random bytes and SHA-256 for the Google sign-in (PKCE).
# libqrencode-dev: the QR code `midiccio serve --lan` shows for pairing a phone.
# libyajl-dev: backups are read as they stream (yajl, an event-driven JSON parser).
# openssl and curl: the HTTPS test makes a certificate and talks to the server over TLS.
# libminizip-dev and libzstd-dev: importing Anki packages (.apkg/.colpkg are zip files whose
# collection is zstd-compressed in Anki's current layout). minizip, not libzip: Debian's
# libzip links OpenSSL, which the everyday `midiccio` must not load (README, "Start-up").
APT_PACKAGES := pkg-config libsqlite3-dev libicu-dev zlib1g-dev libmicrohttpd-dev libssl-dev libminizip-dev libzstd-dev libyajl-dev libqrencode-dev openssl curl lighttpd lighttpd-mod-webdav nginx libnginx-mod-http-dav-ext nodejs sqlite3 python3
ARGS ?= serve
BENCH_ARGS ?= library --words 100000

.PHONY: run test bench build install deps clean format

# Rewrites the code in the format `make test` checks (.swift-format).
format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks Package.swift

# SwiftPM does not compile again the objects that import a system library when its module
# map changes: objects from before SQLite was linked in (2026-12-02) still ask for the
# shared library. A build folder older than that has its objects removed, once.
BUILD_GENERATION := .build/.generation-sqlite-linked-in

deps:
	@if ls -d .build/*-linux-* >/dev/null 2>&1 && [ ! -e $(BUILD_GENERATION) ]; then \
	  echo "Compiling everything again, once: SQLite is now linked into the binaries (README, \"Start-up\")"; \
	  rm -rf .build/*-linux-* .build/debug .build/release; \
	fi; mkdir -p .build && touch $(BUILD_GENERATION)
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing system packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "MiDiccio needs these system packages:$$missing"; \
	    echo "Install them with: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

# A packager builds an OAuth client into midiccio, so its users need not make their own
# (README, "Sync through Google Drive"); only values given on make's command line count:
#   make build MIDICCIO_GDRIVE_CLIENT_ID=1234-abc.apps.googleusercontent.com [MIDICCIO_GDRIVE_CLIENT_SECRET=...]
BUILT_IN_CLIENT := Sources/MiDiccioCloud/GoogleDrive/BuiltInGoogleClient.generated.swift

# The same for iCloud: a CloudKit container and its API token (README, "Sync through iCloud"):
#   make build MIDICCIO_ICLOUD_CONTAINER=iCloud.app.midiccio MIDICCIO_ICLOUD_API_TOKEN=... \
#     [MIDICCIO_ICLOUD_ENVIRONMENT=production] [MIDICCIO_ICLOUD_CALLBACK_URL=http://127.0.0.1:47297/icloud-callback]
BUILT_IN_ICLOUD := Sources/MiDiccioCloud/ICloud/BuiltInICloudApp.generated.swift
BUILD_DEFINES :=
ifeq ($(origin MIDICCIO_GDRIVE_CLIENT_ID),command line)
BUILD_DEFINES += -Xswiftc -DMIDICCIO_GDRIVE_BUILT_IN_CLIENT
endif
ifeq ($(origin MIDICCIO_ICLOUD_CONTAINER),command line)
BUILD_DEFINES += -Xswiftc -DMIDICCIO_ICLOUD_BUILT_IN
endif

build: deps
ifeq ($(origin MIDICCIO_GDRIVE_CLIENT_ID),command line)
	@printf '%s' '$(MIDICCIO_GDRIVE_CLIENT_ID)$(MIDICCIO_GDRIVE_CLIENT_SECRET)' | grep -Eq '^[A-Za-z0-9._-]+$$' \
	  || { echo "MIDICCIO_GDRIVE_CLIENT_ID and MIDICCIO_GDRIVE_CLIENT_SECRET hold only letters, digits, '.', '_' and '-'"; exit 1; }
	@{ echo '// Written by make build (see BuiltInGoogleClient.swift); not in git.'; \
	   echo '/// The OAuth client id built in.'; \
	   echo 'let builtInGoogleClientID = "$(MIDICCIO_GDRIVE_CLIENT_ID)"'; \
	   echo '/// Its secret, if any.'; \
	   echo 'let builtInGoogleClientSecret: String? = $(if $(MIDICCIO_GDRIVE_CLIENT_SECRET),"$(MIDICCIO_GDRIVE_CLIENT_SECRET)",nil)'; \
	 } > $(BUILT_IN_CLIENT)
endif
ifeq ($(origin MIDICCIO_ICLOUD_CONTAINER),command line)
	@printf '%s' '$(MIDICCIO_ICLOUD_CONTAINER)' | grep -Eq '^iCloud\.[A-Za-z0-9._-]+$$' \
	  || { echo "MIDICCIO_ICLOUD_CONTAINER is a container id such as iCloud.app.midiccio"; exit 1; }
	@printf '%s' '$(MIDICCIO_ICLOUD_API_TOKEN)' | grep -Eq '^[A-Za-z0-9]{8,}$$' \
	  || { echo "MIDICCIO_ICLOUD_API_TOKEN is the container's API token from the CloudKit Console (letters and digits)"; exit 1; }
	@printf '%s' '$(MIDICCIO_ICLOUD_ENVIRONMENT)' | grep -Eq '^(development|production|)$$' \
	  || { echo "MIDICCIO_ICLOUD_ENVIRONMENT is development or production"; exit 1; }
	@printf '%s' '$(MIDICCIO_ICLOUD_CALLBACK_URL)' | grep -Eq '^(http://(127\.0\.0\.1|localhost):[0-9]+/[A-Za-z0-9._/-]*|)$$' \
	  || { echo "MIDICCIO_ICLOUD_CALLBACK_URL is http://127.0.0.1:PORT/PATH"; exit 1; }
	@{ echo '// Written by make build (see BuiltInICloudApp.swift); not in git.'; \
	   echo '/// The CloudKit container built in.'; \
	   echo 'let builtInICloudContainer = "$(MIDICCIO_ICLOUD_CONTAINER)"'; \
	   echo '/// Its API token.'; \
	   echo 'let builtInICloudAPIToken = "$(MIDICCIO_ICLOUD_API_TOKEN)"'; \
	   echo '/// The environment ("" for production).'; \
	   echo 'let builtInICloudEnvironment = "$(MIDICCIO_ICLOUD_ENVIRONMENT)"'; \
	   echo '/// The API token'"'"'s Sign-In Callback ("" for the default).'; \
	   echo 'let builtInICloudCallbackURL = "$(MIDICCIO_ICLOUD_CALLBACK_URL)"'; \
	 } > $(BUILT_IN_ICLOUD)
endif
	$(SWIFT) build -c release --product midiccio $(BUILD_DEFINES)
	$(SWIFT) build -c release --product midiccio-online $(BUILD_DEFINES)

# Installs both binaries side by side: midiccio runs the everyday commands and hands the
# ones that go online (serve, sync, remote set ...) to midiccio-online beside it (README,
# "Start-up"). midiccio-online uses the Swift toolchain's shared libraries.
PREFIX ?= /usr/local
install: build
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 .build/release/midiccio .build/release/midiccio-online "$(DESTDIR)$(PREFIX)/bin/"

run: build
	@echo "MiDiccio $$(.build/release/midiccio --version | cut -d' ' -f2): library $${MIDICCIO_LIBRARY:-$${XDG_DATA_HOME:-$$HOME/.local/share}/midiccio/library.sqlite}"
	@.build/release/midiccio $(ARGS)

# The tests run against a real WebDAV server, a fake Google Drive and a fake CloudKit:
# Tests/WebDAV/server.sh starts lighttpd, Tests/GoogleDrive/server.sh the fake Drive and
# Tests/CloudKit/server.sh the fake CloudKit Web Services (Python, standard library only),
# each on 127.0.0.1 on a free port for the run, and the trap stops them all (by process
# id, with any server a test started inside their folders) however the tests end. The
# fakes' own self-tests run first. When a Swift test fails, the issues recorded are
# printed again at the end, where a CI log cut to its last lines still shows them.
test: deps
	$(SWIFT) format lint --strict --recursive Sources Tests Benchmarks Package.swift
	python3 -m unittest discover -s Tests/GoogleDrive -p 'test_*.py'
	python3 -m unittest discover -s Tests/CloudKit -p 'test_*.py'
	$(SWIFT) build --build-tests
	@state=$$(mktemp -d "$${TMPDIR:-/tmp}/midiccio-webdav.XXXXXX") || exit 1; \
	drive=$$(mktemp -d "$${TMPDIR:-/tmp}/midiccio-gdrive.XXXXXX") || exit 1; \
	cloudkit=$$(mktemp -d "$${TMPDIR:-/tmp}/midiccio-cloudkit.XXXXXX") || exit 1; \
	results=$$(mktemp -d "$${TMPDIR:-/tmp}/midiccio-tests.XXXXXX") || exit 1; \
	trap 'bash Tests/WebDAV/server.sh stop "$$state"; bash Tests/GoogleDrive/server.sh stop "$$drive"; bash Tests/CloudKit/server.sh stop "$$cloudkit"; rm -rf "$$results"' EXIT; trap 'exit 130' INT TERM; \
	bash Tests/WebDAV/server.sh start "$$state" || exit 1; \
	bash Tests/GoogleDrive/server.sh start "$$drive" || exit 1; \
	bash Tests/CloudKit/server.sh start "$$cloudkit" || exit 1; \
	echo "WebDAV test server: $$(cat "$$state/url") (lighttpd, process $$(cat "$$state/pid"))"; \
	echo "Fake Google Drive: $$(cat "$$drive/url") (process $$(cat "$$drive/pid"))"; \
	echo "Fake CloudKit: $$(cat "$$cloudkit/url") (process $$(cat "$$cloudkit/pid"))"; \
	{ MIDICCIO_WEBDAV_TEST_URL="$$(cat "$$state/url")" MIDICCIO_WEBDAV_TEST_USER="$$(cat "$$state/user")" \
	MIDICCIO_WEBDAV_TEST_PASSWORD="$$(cat "$$state/password")" MIDICCIO_WEBDAV_TEST_STATE="$$state" \
	MIDICCIO_WEBDAV_TEST_SCRIPT="$$(pwd)/Tests/WebDAV/server.sh" MIDICCIO_GDRIVE_TEST_URL="$$(cat "$$drive/url")" \
	MIDICCIO_ICLOUD_TEST_URL="$$(cat "$$cloudkit/url")" $(SWIFT) test --skip-build; echo $$? > "$$results/status"; } 2>&1 \
		| tee "$$results/output"; \
	status=$$(cat "$$results/status"); \
	if [ "$$status" != 0 ]; then \
		echo "make test: the Swift tests failed (exit $$status); the issues they recorded:"; \
		awk '/✘|Fatal error/ { print; kept = 1; next } kept && /^↳/ { print; next } { kept = 0 }' "$$results/output" | cut -c1-2000; \
		exit "$$status"; \
	fi
	Tests/Browser/run.sh

bench: deps
	$(SWIFT) build -c release --product midiccio-bench
	$(SWIFT) build -c release --product midiccio
	.build/release/midiccio-bench $(BENCH_ARGS)

clean:
	rm -rf .build
