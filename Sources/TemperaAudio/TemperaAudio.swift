// The audio module: samples, voices, mixer, engine, output backends.
import TemperaCore
