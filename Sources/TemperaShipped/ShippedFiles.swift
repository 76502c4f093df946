/// The shipped themes and default key map, compiled into the program from the top-level `Themes/` (through the link
/// `Sources/TemperaShipped/Themes`) and `Sources/TemperaShipped/Keymaps` by SwiftPM (`embedInCode`): the program finds them wherever it runs from, installed or in a fresh clone,
/// with no lookup at run time and no generated file to keep in step. Edit the files; the next build has them.
public enum ShippedFiles {
    /// `Keymaps/default.keys`.
    public static let defaultKeys = text(PackageResources.default_keys)

    /// `Themes/NAME.theme` by NAME. A new theme file needs its line here (a test lists the folder against it).
    public static let themes: [String: String] = [
        "dark": text(PackageResources.dark_theme),
        "light": text(PackageResources.light_theme),
        "high-contrast": text(PackageResources.high_contrast_theme),
    ]

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
