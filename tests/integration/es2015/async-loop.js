//! value: 15
//! stdout: ""
let sum = 0;
for (const p of [1, 2, 3].map(x => Promise.resolve(x))) sum += await p;
async function* more() { yield 4; yield 5; }
for await (const x of more()) sum += x;
return sum;
