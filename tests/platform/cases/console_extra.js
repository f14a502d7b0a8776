// console.table, dir, count, assert, time/timeEnd/timeLog warnings as Node prints
// them (console_time.js: the timings).
console.table([{ a: 1, b: 'Y' }, { a: 'Z', b: 2 }]);
console.table([1, 'two', { three: 3 }]);
console.table({ x: { a: 1 }, y: { b: [1, 2, 3, 4, 5] }, z: 5 });
console.table(new Map([['k', 1], [{ o: 1 }, 'v']]));
console.table(new Set([1, 'a']));
console.table([{ a: 1, b: 2 }], ['a']);
console.table([[1, 2], [3, 4, 5]]);
console.table([{ 'é中': '中文字' }]);
console.table([{ a: { x: 1, y: 2, z: 3 }, b: [1, [2], { c: 1 }] }]);
console.table(5);
console.table('str');
console.table([]);
console.dir({ a: { b: { c: { d: 1 } } } });
console.dir('str');
console.dir("it's");
console.dir([1, 'two']);
console.count(); console.count(); console.count('x'); console.countReset(); console.count();
console.assert(true, 'not printed'); console.assert(false, 'printed', 2); console.assert(false); console.assert(0, { a: 1 });
// Node prints its warnings after the run's own output: these come last.
console.countReset('nope'); console.timeEnd('missing'); console.timeLog('missing');
console.time(); console.time();
return ['table', 'dir', 'time', 'timeEnd', 'timeLog', 'count', 'countReset', 'assert', 'trace'].map((m) => typeof console[m]);
