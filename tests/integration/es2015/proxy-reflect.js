//! value: ["ABC",2,true]
//! stdout: ""
const p = new Proxy({}, {get: (target, key) => String(key).toUpperCase()});
return [p.abc, Reflect.ownKeys({a: 1, [Symbol('x')]: 2}).length, Reflect.has({k: 1}, 'k')];
