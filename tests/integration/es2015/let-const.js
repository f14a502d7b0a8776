//! value: [0,1,2,"const"]
//! stdout: ""
const out = [];
for (let i = 0; i < 3; i++) out.push(() => i);
const c = 'const';
try { c = 'changed'; } catch (e) { if (!(e instanceof TypeError)) throw e; }
return [...out.map(f => f()), c];
