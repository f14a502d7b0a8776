//! value: null
//! stdout: "{ a: 1, b: 'x', c: [ 1, 2 ], d: { e: null } } [ 1, 'a' ] str 5 null undefined true\n"
console.log({a: 1, b: 'x', c: [1, 2], d: {e: null}}, [1, 'a'], 'str', 5, null, undefined, true);
return null;
