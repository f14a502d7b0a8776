//! value: [1,10,true,[1,2,3]]
//! stdout: ""
function* gen() { const x = yield 1; yield x * 2; }
const g = gen();
const first = g.next().value, second = g.next(5).value, done = g.next().done;
return [first, second, done, [...(function* () { yield* [1, 2]; yield 3; })()]];
