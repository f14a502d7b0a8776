//! value: [2,128512,"😀",2,"É"]
//! stdout: ""
return [[...'😀a'].length, '😀'.codePointAt(0), String.fromCodePoint(0x1F600),
        '\u00e9'.normalize('NFD').length, 'é'.toUpperCase()];
