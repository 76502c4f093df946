# Set-up and everyday commands. `make run` and `make test` install the system packages they need first.

SWIFT ?= swift
APT_PACKAGES = libxml2-dev hydrogen hydrogen-drumkits hydrogen-data libncursesw5-dev libpulse-dev libsndfile1-dev libsamplerate0-dev pulseaudio pulseaudio-utils tmux sox pkg-config \
               python3-mido libfluidsynth-dev libjack-jackd2-dev jackd2 python3-jack-client timgm6mb-soundfont man-db ableton-link-dev iproute2 time openssh-server openssh-client \
               libaubio5 sonic-pi-samples liblo-dev liblo-tools python3-liblo

.PHONY: run test build release bench deps kit clean install install-files uninstall fuzz reference

run: deps release
	.build/release/tempera $(FILE)

test: deps
	$(SWIFT) build
	$(SWIFT) test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

bench: deps
	$(SWIFT) run -c release tempera-bench

# Fuzzes every reader with libFuzzer (scripts/fuzz), one target after another: FUZZ_SECONDS each, or FUZZ_RUNS
# inputs each; FUZZ_TARGETS picks some. Builds into .build-fuzz, apart from the ordinary build.
FUZZ_SECONDS ?= 30
fuzz: deps
	SWIFT="$(SWIFT)" FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_RUNS="$(FUZZ_RUNS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" scripts/fuzz

# Regenerates the command reference (docs/commands.md and the man page's command section) from the command table.
reference:
	$(SWIFT) build --build-tests
	TEMPERA_WRITE_REFERENCE=1 $(SWIFT) test --skip-build --filter CommandTableTests/testTheGeneratedReferenceIsCurrent

# Regenerates the default kit in Samples/ (the generator is part of the package).
kit: deps
	$(SWIFT) run tempera-kit Samples

# Installs whatever of APT_PACKAGES is missing (Debian; needs root or sudo).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing \
	  || { $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; }; \
	fi

clean:
	rm -rf .build

# Installs like a Unix program: `make install [PREFIX=/usr/local] [DESTDIR=...]`. The binary goes in PREFIX/bin,
# the kit, themes and key map in PREFIX/share/tempera (the binary finds them there, relative to itself), the man
# page in PREFIX/share/man/man1, shell completions where bash, zsh and fish look for them.
PREFIX ?= /usr/local
CONFIG ?= release
BIN = .build/$(CONFIG)/tempera
ROOT = $(DESTDIR)$(PREFIX)

install: deps
	$(SWIFT) build -c $(CONFIG) --product tempera
	$(MAKE) install-files PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" CONFIG=$(CONFIG)

# The copying alone, from an existing build of CONFIG.
install-files:
	install -d "$(ROOT)/bin" "$(ROOT)/share/tempera/Samples" "$(ROOT)/share/tempera/Themes" \
	  "$(ROOT)/share/tempera/Keymaps" "$(ROOT)/share/man/man1" "$(ROOT)/share/bash-completion/completions" \
	  "$(ROOT)/share/zsh/site-functions" "$(ROOT)/share/fish/vendor_completions.d"
	install -m 755 $(BIN) "$(ROOT)/bin/tempera"
	install -m 644 Samples/*.wav "$(ROOT)/share/tempera/Samples/"
	install -m 644 Shipped/Themes/*.theme "$(ROOT)/share/tempera/Themes/"
	install -m 644 Shipped/Keymaps/default.keys "$(ROOT)/share/tempera/Keymaps/"
	install -m 644 man/tempera.1 "$(ROOT)/share/man/man1/tempera.1"
	$(BIN) --generate-completion-script bash > "$(ROOT)/share/bash-completion/completions/tempera"
	$(BIN) --generate-completion-script zsh > "$(ROOT)/share/zsh/site-functions/_tempera"
	$(BIN) --generate-completion-script fish > "$(ROOT)/share/fish/vendor_completions.d/tempera.fish"

uninstall:
	rm -f "$(ROOT)/bin/tempera" "$(ROOT)/share/man/man1/tempera.1" \
	  "$(ROOT)/share/bash-completion/completions/tempera" "$(ROOT)/share/zsh/site-functions/_tempera" \
	  "$(ROOT)/share/fish/vendor_completions.d/tempera.fish"
	rm -rf "$(ROOT)/share/tempera"
