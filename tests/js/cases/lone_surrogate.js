//! value: {"admin": false, "note": "\ufffd", "k\ufffd": ["x\ufffd\ud83d\ude00", "\ufffd\ufffd"]}
//! tiers: worker process
// Issue 23, item 4, in both tiers: lone surrogates in the value become U+FFFD (JSON.stringify
// escapes them as \ud800, which JSON parsers refuse); the value stays an object, never a string.
return {admin: false, note: '\ud800', 'k\udc00': ['x\udfff\ud83d\ude00', '\ude00\ud800']};
