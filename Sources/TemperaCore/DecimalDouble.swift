/// Exact decimal-to-binary conversion for the numbers a document file holds: `mantissa × 10^power`, correctly
/// rounded to the nearest Double (ties to even), without building a string.
///
/// A 17-digit time or amplitude, as shortest-round-trip output writes them, is beyond the classic fast path
/// (a mantissa below 2^53 times an exact power of ten); the Eisel-Lemire method handles it with one or two
/// 64×128-bit multiplications by a truncated power of five. Powers of ten outside the table, subnormal
/// results and mantissas of more than 19 digits return nil, and the caller takes the slow, general path.
///
/// Reference: Daniel Lemire, "Number Parsing at a Gigabyte per Second" (2021); Noble Mushtak and Daniel
/// Lemire, "Fast Number Parsing Without Fallback" (2023), which proves the two-word product always suffices.
enum DecimalDouble {
    /// The powers of ten the table covers.
    static let minPower = -100
    static let maxPower = 60

    /// The value nearest `mantissa × 10^power`, or nil when this method does not apply.
    @inline(__always)
    static func value(mantissa: UInt64, power: Int) -> Double? {
        if mantissa == 0 { return 0 }
        // Clinger's fast path: both factors exact, so one operation rounds correctly.
        if mantissa <= 1 << 53, power >= -22, power <= 22 {
            let m = Double(mantissa)
            return power < 0 ? m / exactPowersOfTen[-power] : m * exactPowersOfTen[power]
        }
        guard power >= minPower, power <= maxPower else { return nil }
        let lz = mantissa.leadingZeroBitCount
        let w = mantissa << UInt64(lz)
        let index = 2 * (power - minPower)
        return powersOfFive.withUnsafeBufferPointer { table -> Double? in
            // The top bits of w × 5^power; a second word of the power is needed only when the low bits
            // could carry into the 55 that decide the rounding.
            var (high, low) = w.multipliedFullWidth(by: table[index])
            let precisionMask: UInt64 = .max >> 55
            if high & precisionMask == precisionMask {
                let second = w.multipliedFullWidth(by: table[index + 1]).high
                let (sum, carry) = low.addingReportingOverflow(second)
                low = sum
                if carry { high &+= 1 }
            }
            let upperBit = Int(high >> 63)
            let shift = UInt64(upperBit + 64 - 52 - 3)
            var significand = high >> shift
            // log2(10^power) = power × log2(10), as a fixed-point product exact over the table's range.
            var exponent = (((152_170 + 65_536) * power) >> 16) + 63 + upperBit - lz + 1023
            if exponent <= 0 { return nil }  // subnormal
            // Exactly halfway between two Doubles (only possible for small powers): round to even.
            if low <= 1, power >= -4, power <= 23, significand & 3 == 1, significand << shift == high {
                significand &= ~1
            }
            significand += significand & 1
            significand >>= 1
            if significand >= 2 << 52 {
                significand = 1 << 52
                exponent += 1
            }
            if exponent >= 0x7FF { return nil }
            return Double(sign: .plus, exponentBitPattern: UInt(exponent),
                          significandBitPattern: significand & ((1 << 52) - 1))
        }
    }

    static let exactPowersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

    /// 5^power for power in minPower...maxPower as 128-bit values normalised so their top bit is set (two words,
    /// high first), truncated; negative powers are 2^k / 5^-power rounded up, as the method requires.
    static let powersOfFive: [UInt64] = [
        0xDFF9772470297EBD, 0x59787E2B93BC56F7,  // 5^-100
        0x8BFBEA76C619EF36, 0x57EB4EDB3C55B65A,  // 5^-99
        0xAEFAE51477A06B03, 0xEDE622920B6B23F1,  // 5^-98
        0xDAB99E59958885C4, 0xE95FAB368E45ECED,  // 5^-97
        0x88B402F7FD75539B, 0x11DBCB0218EBB414,  // 5^-96
        0xAAE103B5FCD2A881, 0xD652BDC29F26A119,  // 5^-95
        0xD59944A37C0752A2, 0x4BE76D3346F0495F,  // 5^-94
        0x857FCAE62D8493A5, 0x6F70A4400C562DDB,  // 5^-93
        0xA6DFBD9FB8E5B88E, 0xCB4CCD500F6BB952,  // 5^-92
        0xD097AD07A71F26B2, 0x7E2000A41346A7A7,  // 5^-91
        0x825ECC24C873782F, 0x8ED400668C0C28C8,  // 5^-90
        0xA2F67F2DFA90563B, 0x728900802F0F32FA,  // 5^-89
        0xCBB41EF979346BCA, 0x4F2B40A03AD2FFB9,  // 5^-88
        0xFEA126B7D78186BC, 0xE2F610C84987BFA8,  // 5^-87
        0x9F24B832E6B0F436, 0x0DD9CA7D2DF4D7C9,  // 5^-86
        0xC6EDE63FA05D3143, 0x91503D1C79720DBB,  // 5^-85
        0xF8A95FCF88747D94, 0x75A44C6397CE912A,  // 5^-84
        0x9B69DBE1B548CE7C, 0xC986AFBE3EE11ABA,  // 5^-83
        0xC24452DA229B021B, 0xFBE85BADCE996168,  // 5^-82
        0xF2D56790AB41C2A2, 0xFAE27299423FB9C3,  // 5^-81
        0x97C560BA6B0919A5, 0xDCCD879FC967D41A,  // 5^-80
        0xBDB6B8E905CB600F, 0x5400E987BBC1C920,  // 5^-79
        0xED246723473E3813, 0x290123E9AAB23B68,  // 5^-78
        0x9436C0760C86E30B, 0xF9A0B6720AAF6521,  // 5^-77
        0xB94470938FA89BCE, 0xF808E40E8D5B3E69,  // 5^-76
        0xE7958CB87392C2C2, 0xB60B1D1230B20E04,  // 5^-75
        0x90BD77F3483BB9B9, 0xB1C6F22B5E6F48C2,  // 5^-74
        0xB4ECD5F01A4AA828, 0x1E38AEB6360B1AF3,  // 5^-73
        0xE2280B6C20DD5232, 0x25C6DA63C38DE1B0,  // 5^-72
        0x8D590723948A535F, 0x579C487E5A38AD0E,  // 5^-71
        0xB0AF48EC79ACE837, 0x2D835A9DF0C6D851,  // 5^-70
        0xDCDB1B2798182244, 0xF8E431456CF88E65,  // 5^-69
        0x8A08F0F8BF0F156B, 0x1B8E9ECB641B58FF,  // 5^-68
        0xAC8B2D36EED2DAC5, 0xE272467E3D222F3F,  // 5^-67
        0xD7ADF884AA879177, 0x5B0ED81DCC6ABB0F,  // 5^-66
        0x86CCBB52EA94BAEA, 0x98E947129FC2B4E9,  // 5^-65
        0xA87FEA27A539E9A5, 0x3F2398D747B36224,  // 5^-64
        0xD29FE4B18E88640E, 0x8EEC7F0D19A03AAD,  // 5^-63
        0x83A3EEEEF9153E89, 0x1953CF68300424AC,  // 5^-62
        0xA48CEAAAB75A8E2B, 0x5FA8C3423C052DD7,  // 5^-61
        0xCDB02555653131B6, 0x3792F412CB06794D,  // 5^-60
        0x808E17555F3EBF11, 0xE2BBD88BBEE40BD0,  // 5^-59
        0xA0B19D2AB70E6ED6, 0x5B6ACEAEAE9D0EC4,  // 5^-58
        0xC8DE047564D20A8B, 0xF245825A5A445275,  // 5^-57
        0xFB158592BE068D2E, 0xEED6E2F0F0D56712,  // 5^-56
        0x9CED737BB6C4183D, 0x55464DD69685606B,  // 5^-55
        0xC428D05AA4751E4C, 0xAA97E14C3C26B886,  // 5^-54
        0xF53304714D9265DF, 0xD53DD99F4B3066A8,  // 5^-53
        0x993FE2C6D07B7FAB, 0xE546A8038EFE4029,  // 5^-52
        0xBF8FDB78849A5F96, 0xDE98520472BDD033,  // 5^-51
        0xEF73D256A5C0F77C, 0x963E66858F6D4440,  // 5^-50
        0x95A8637627989AAD, 0xDDE7001379A44AA8,  // 5^-49
        0xBB127C53B17EC159, 0x5560C018580D5D52,  // 5^-48
        0xE9D71B689DDE71AF, 0xAAB8F01E6E10B4A6,  // 5^-47
        0x9226712162AB070D, 0xCAB3961304CA70E8,  // 5^-46
        0xB6B00D69BB55C8D1, 0x3D607B97C5FD0D22,  // 5^-45
        0xE45C10C42A2B3B05, 0x8CB89A7DB77C506A,  // 5^-44
        0x8EB98A7A9A5B04E3, 0x77F3608E92ADB242,  // 5^-43
        0xB267ED1940F1C61C, 0x55F038B237591ED3,  // 5^-42
        0xDF01E85F912E37A3, 0x6B6C46DEC52F6688,  // 5^-41
        0x8B61313BBABCE2C6, 0x2323AC4B3B3DA015,  // 5^-40
        0xAE397D8AA96C1B77, 0xABEC975E0A0D081A,  // 5^-39
        0xD9C7DCED53C72255, 0x96E7BD358C904A21,  // 5^-38
        0x881CEA14545C7575, 0x7E50D64177DA2E54,  // 5^-37
        0xAA242499697392D2, 0xDDE50BD1D5D0B9E9,  // 5^-36
        0xD4AD2DBFC3D07787, 0x955E4EC64B44E864,  // 5^-35
        0x84EC3C97DA624AB4, 0xBD5AF13BEF0B113E,  // 5^-34
        0xA6274BBDD0FADD61, 0xECB1AD8AEACDD58E,  // 5^-33
        0xCFB11EAD453994BA, 0x67DE18EDA5814AF2,  // 5^-32
        0x81CEB32C4B43FCF4, 0x80EACF948770CED7,  // 5^-31
        0xA2425FF75E14FC31, 0xA1258379A94D028D,  // 5^-30
        0xCAD2F7F5359A3B3E, 0x096EE45813A04330,  // 5^-29
        0xFD87B5F28300CA0D, 0x8BCA9D6E188853FC,  // 5^-28
        0x9E74D1B791E07E48, 0x775EA264CF55347E,  // 5^-27
        0xC612062576589DDA, 0x95364AFE032A819E,  // 5^-26
        0xF79687AED3EEC551, 0x3A83DDBD83F52205,  // 5^-25
        0x9ABE14CD44753B52, 0xC4926A9672793543,  // 5^-24
        0xC16D9A0095928A27, 0x75B7053C0F178294,  // 5^-23
        0xF1C90080BAF72CB1, 0x5324C68B12DD6339,  // 5^-22
        0x971DA05074DA7BEE, 0xD3F6FC16EBCA5E04,  // 5^-21
        0xBCE5086492111AEA, 0x88F4BB1CA6BCF585,  // 5^-20
        0xEC1E4A7DB69561A5, 0x2B31E9E3D06C32E6,  // 5^-19
        0x9392EE8E921D5D07, 0x3AFF322E62439FD0,  // 5^-18
        0xB877AA3236A4B449, 0x09BEFEB9FAD487C3,  // 5^-17
        0xE69594BEC44DE15B, 0x4C2EBE687989A9B4,  // 5^-16
        0x901D7CF73AB0ACD9, 0x0F9D37014BF60A11,  // 5^-15
        0xB424DC35095CD80F, 0x538484C19EF38C95,  // 5^-14
        0xE12E13424BB40E13, 0x2865A5F206B06FBA,  // 5^-13
        0x8CBCCC096F5088CB, 0xF93F87B7442E45D4,  // 5^-12
        0xAFEBFF0BCB24AAFE, 0xF78F69A51539D749,  // 5^-11
        0xDBE6FECEBDEDD5BE, 0xB573440E5A884D1C,  // 5^-10
        0x89705F4136B4A597, 0x31680A88F8953031,  // 5^-9
        0xABCC77118461CEFC, 0xFDC20D2B36BA7C3E,  // 5^-8
        0xD6BF94D5E57A42BC, 0x3D32907604691B4D,  // 5^-7
        0x8637BD05AF6C69B5, 0xA63F9A49C2C1B110,  // 5^-6
        0xA7C5AC471B478423, 0x0FCF80DC33721D54,  // 5^-5
        0xD1B71758E219652B, 0xD3C36113404EA4A9,  // 5^-4
        0x83126E978D4FDF3B, 0x645A1CAC083126EA,  // 5^-3
        0xA3D70A3D70A3D70A, 0x3D70A3D70A3D70A4,  // 5^-2
        0xCCCCCCCCCCCCCCCC, 0xCCCCCCCCCCCCCCCD,  // 5^-1
        0x8000000000000000, 0x0000000000000000,  // 5^0
        0xA000000000000000, 0x0000000000000000,  // 5^1
        0xC800000000000000, 0x0000000000000000,  // 5^2
        0xFA00000000000000, 0x0000000000000000,  // 5^3
        0x9C40000000000000, 0x0000000000000000,  // 5^4
        0xC350000000000000, 0x0000000000000000,  // 5^5
        0xF424000000000000, 0x0000000000000000,  // 5^6
        0x9896800000000000, 0x0000000000000000,  // 5^7
        0xBEBC200000000000, 0x0000000000000000,  // 5^8
        0xEE6B280000000000, 0x0000000000000000,  // 5^9
        0x9502F90000000000, 0x0000000000000000,  // 5^10
        0xBA43B74000000000, 0x0000000000000000,  // 5^11
        0xE8D4A51000000000, 0x0000000000000000,  // 5^12
        0x9184E72A00000000, 0x0000000000000000,  // 5^13
        0xB5E620F480000000, 0x0000000000000000,  // 5^14
        0xE35FA931A0000000, 0x0000000000000000,  // 5^15
        0x8E1BC9BF04000000, 0x0000000000000000,  // 5^16
        0xB1A2BC2EC5000000, 0x0000000000000000,  // 5^17
        0xDE0B6B3A76400000, 0x0000000000000000,  // 5^18
        0x8AC7230489E80000, 0x0000000000000000,  // 5^19
        0xAD78EBC5AC620000, 0x0000000000000000,  // 5^20
        0xD8D726B7177A8000, 0x0000000000000000,  // 5^21
        0x878678326EAC9000, 0x0000000000000000,  // 5^22
        0xA968163F0A57B400, 0x0000000000000000,  // 5^23
        0xD3C21BCECCEDA100, 0x0000000000000000,  // 5^24
        0x84595161401484A0, 0x0000000000000000,  // 5^25
        0xA56FA5B99019A5C8, 0x0000000000000000,  // 5^26
        0xCECB8F27F4200F3A, 0x0000000000000000,  // 5^27
        0x813F3978F8940984, 0x4000000000000000,  // 5^28
        0xA18F07D736B90BE5, 0x5000000000000000,  // 5^29
        0xC9F2C9CD04674EDE, 0xA400000000000000,  // 5^30
        0xFC6F7C4045812296, 0x4D00000000000000,  // 5^31
        0x9DC5ADA82B70B59D, 0xF020000000000000,  // 5^32
        0xC5371912364CE305, 0x6C28000000000000,  // 5^33
        0xF684DF56C3E01BC6, 0xC732000000000000,  // 5^34
        0x9A130B963A6C115C, 0x3C7F400000000000,  // 5^35
        0xC097CE7BC90715B3, 0x4B9F100000000000,  // 5^36
        0xF0BDC21ABB48DB20, 0x1E86D40000000000,  // 5^37
        0x96769950B50D88F4, 0x1314448000000000,  // 5^38
        0xBC143FA4E250EB31, 0x17D955A000000000,  // 5^39
        0xEB194F8E1AE525FD, 0x5DCFAB0800000000,  // 5^40
        0x92EFD1B8D0CF37BE, 0x5AA1CAE500000000,  // 5^41
        0xB7ABC627050305AD, 0xF14A3D9E40000000,  // 5^42
        0xE596B7B0C643C719, 0x6D9CCD05D0000000,  // 5^43
        0x8F7E32CE7BEA5C6F, 0xE4820023A2000000,  // 5^44
        0xB35DBF821AE4F38B, 0xDDA2802C8A800000,  // 5^45
        0xE0352F62A19E306E, 0xD50B2037AD200000,  // 5^46
        0x8C213D9DA502DE45, 0x4526F422CC340000,  // 5^47
        0xAF298D050E4395D6, 0x9670B12B7F410000,  // 5^48
        0xDAF3F04651D47B4C, 0x3C0CDD765F114000,  // 5^49
        0x88D8762BF324CD0F, 0xA5880A69FB6AC800,  // 5^50
        0xAB0E93B6EFEE0053, 0x8EEA0D047A457A00,  // 5^51
        0xD5D238A4ABE98068, 0x72A4904598D6D880,  // 5^52
        0x85A36366EB71F041, 0x47A6DA2B7F864750,  // 5^53
        0xA70C3C40A64E6C51, 0x999090B65F67D924,  // 5^54
        0xD0CF4B50CFE20765, 0xFFF4B4E3F741CF6D,  // 5^55
        0x82818F1281ED449F, 0xBFF8F10E7A8921A4,  // 5^56
        0xA321F2D7226895C7, 0xAFF72D52192B6A0D,  // 5^57
        0xCBEA6F8CEB02BB39, 0x9BF4F8A69F764490,  // 5^58
        0xFEE50B7025C36A08, 0x02F236D04753D5B4,  // 5^59
        0x9F4F2726179A2245, 0x01D762422C946590,  // 5^60
    ]
}
