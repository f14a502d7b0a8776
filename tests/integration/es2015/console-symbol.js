//! value: null
//! stdout: "Symbol(s) [ Symbol(Symbol.iterator) ]\n"
console.log(Symbol('s'), [Symbol.iterator]);
return null;
