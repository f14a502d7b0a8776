//! value: ["a","b","c","d"]
//! stdout: "a,b,c,d\n"
const log = [];
const p = (async () => { log.push('a'); await null; log.push('c'); })();
log.push('b');
await p;
await Promise.resolve().then(() => log.push('d'));
console.log(log.join(','));
return log;
