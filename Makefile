# Set-up and everyday commands. `make run` installs what building and running need; `make check` and `make test`
# install what the tests use as well (Debian packages, with apt-get).

SWIFT ?= swift
# Building and running: the C libraries' headers (their run-time libraries come with them), pkg-config to find
# them, and libaubio, which the program opens when it imports a recording.
RUN_PACKAGES = pkg-config libncursesw5-dev libpulse-dev libsndfile1-dev libsamplerate0-dev libxml2-dev \
               libfluidsynth-dev libjack-jackd2-dev ableton-link-dev libaubio5 liblo-dev
# What the tests start or read beside the program: private PulseAudio and JACK servers and their clients, tmux,
# sshd, Hydrogen (h2cli, its kits and songs), Python's MIDI and JACK modules, a SoundFont, recorded drum loops
# (sonic-pi-samples, lmms-common), numpy (the onset ground truth), sox, man, GNU time, pgrep and kill (procps),
# ip (iproute2), liblo's OSC tools, a MIDI clock generator (jack-midi-clock), a private PipeWire (its JACK and
# pulse servers) in a D-Bus session of its own, strace (the system calls a render makes).
TEST_PACKAGES = pulseaudio pulseaudio-utils jackd2 python3 python3-jack-client python3-mido tmux \
                openssh-server openssh-client hydrogen hydrogen-drumkits hydrogen-data timgm6mb-soundfont \
                sonic-pi-samples lmms-common python3-numpy sox man-db time procps iproute2 \
                liblo-tools python3-liblo jack-midi-clock pipewire pipewire-pulse wireplumber pipewire-jack dbus strace

.PHONY: run test check build release bench deps test-deps kit clean install install-files uninstall fuzz reference

# Release builds carry Swift's runtime and Foundation inside the program (--static-swift-stdlib): the dynamic
# loader then maps and relocates a dozen fewer libraries at every start (docs/decisions/architecture.md). Debug
# builds, which the tests use, link them as shared libraries.
RELEASE = -c release --static-swift-stdlib

run: deps release
	.build/release/tempera $(FILE)

# Everything, as CI runs it: the fast tier and the real-time groups side by side (scripts/test-suite).
test: test-deps
	$(SWIFT) build --build-tests
	scripts/test-suite all

# The fast tier: the core, parsing, the engine in process, the editor on an in-memory screen; no test that waits
# on a clock (about 55 s of processor time, in two processes).
check: test-deps
	$(SWIFT) build --build-tests
	scripts/test-suite check

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE)

# The `jack` section starts a private JACK server, so the bench wants what the tests use.
bench: test-deps
	$(SWIFT) run $(RELEASE) tempera-bench

# Fuzzes every reader with libFuzzer (scripts/fuzz), one target after another: FUZZ_SECONDS each, or FUZZ_RUNS
# inputs each; FUZZ_TARGETS picks some. Builds into .build-fuzz, apart from the ordinary build.
FUZZ_SECONDS ?= 30
fuzz: deps
	SWIFT="$(SWIFT)" FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_RUNS="$(FUZZ_RUNS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" scripts/fuzz

# Regenerates the command reference (docs/commands.md and the man page's command section) from the command table,
# and the man page's synopsis and options from the command line's definitions.
reference:
	$(SWIFT) build --build-tests
	TEMPERA_WRITE_REFERENCE=1 $(SWIFT) test --skip-build --filter CommandTableTests/testTheGeneratedReferenceIsCurrent \
	  --filter ManPageTests/testTheManPagesSynopsisAndOptionsAreTheCommandLinesDefinitions

# Regenerates the default kit in Samples/ (the generator is part of the package).
kit: deps
	$(SWIFT) run tempera-kit Samples

# Installs whatever of RUN_PACKAGES (test-deps: and TEST_PACKAGES) is missing (Debian; needs root or sudo).
deps:
	@scripts/apt-install $(RUN_PACKAGES)

test-deps:
	@scripts/apt-install $(RUN_PACKAGES) $(TEST_PACKAGES)

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
	$(SWIFT) build $(if $(filter release,$(CONFIG)),$(RELEASE),-c $(CONFIG)) --product tempera
	$(MAKE) install-files PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" CONFIG=$(CONFIG)

# The copying alone, from an existing build of CONFIG.
install-files:
	install -d "$(ROOT)/bin" "$(ROOT)/share/tempera/Samples" "$(ROOT)/share/tempera/Themes" \
	  "$(ROOT)/share/tempera/Keymaps" "$(ROOT)/share/man/man1" "$(ROOT)/share/bash-completion/completions" \
	  "$(ROOT)/share/zsh/site-functions" "$(ROOT)/share/fish/vendor_completions.d"
	install -m 755 $(BIN) "$(ROOT)/bin/tempera"
	install -m 644 Samples/*.wav "$(ROOT)/share/tempera/Samples/"
	install -m 644 Themes/*.theme "$(ROOT)/share/tempera/Themes/"
	install -m 644 Sources/TemperaShipped/Keymaps/default.keys "$(ROOT)/share/tempera/Keymaps/"
	install -m 644 man/tempera.1 "$(ROOT)/share/man/man1/tempera.1"
	$(BIN) --generate-completion-script bash > "$(ROOT)/share/bash-completion/completions/tempera"
	$(BIN) --generate-completion-script zsh > "$(ROOT)/share/zsh/site-functions/_tempera"
	$(BIN) --generate-completion-script fish > "$(ROOT)/share/fish/vendor_completions.d/tempera.fish"

uninstall:
	rm -f "$(ROOT)/bin/tempera" "$(ROOT)/share/man/man1/tempera.1" \
	  "$(ROOT)/share/bash-completion/completions/tempera" "$(ROOT)/share/zsh/site-functions/_tempera" \
	  "$(ROOT)/share/fish/vendor_completions.d/tempera.fish"
	rm -rf "$(ROOT)/share/tempera"
