# Set-up and everyday commands. `make run` and `make test` install the system packages they need first.

SWIFT ?= swift
APT_PACKAGES = libncursesw5-dev libpulse-dev libsndfile1-dev libsamplerate0-dev pulseaudio pulseaudio-utils tmux sox pkg-config \
               python3-mido libfluidsynth-dev libjack-jackd2-dev timgm6mb-soundfont

.PHONY: run test build release bench deps kit clean

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
