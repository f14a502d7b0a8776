//! value: {"admin": false, "note": "\ufffd", "k\ufffd": ["x\ufffd\ud83d\ude00", "\ufffd\ufffd"]}
//! args: --backend process
// Issue 23, item 4, in the process tier's JS guest: lone surrogates in the value become U+FFFD;
// the value stays an object, never turned into a string.
return {admin: false, note: '\ud800', 'k\udc00': ['x\udfff\ud83d\ude00', '\ude00\ud800']};
