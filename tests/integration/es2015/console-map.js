//! value: null
//! stdout: "Map(2) { 'a' => 1, 'b' => { c: 2 } }\n"
console.log(new Map([['a', 1], ['b', {c: 2}]]));
return null;
