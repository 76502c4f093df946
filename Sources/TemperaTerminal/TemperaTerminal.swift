// The terminal module: screen, panes, key maps, themes, the editor loop.
import TemperaCore
