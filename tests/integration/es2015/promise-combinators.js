//! value: [[1,2],["rejected","fulfilled"],"first",3]
//! stdout: ""
const all = await Promise.all([1, Promise.resolve(2)]);
const settled = await Promise.allSettled([Promise.reject(new Error('x')), 1]);
const race = await Promise.race([Promise.resolve('first'), new Promise(() => {})]);
const any = await Promise.any([Promise.reject(new Error('y')), Promise.resolve(3)]);
return [all, settled.map(s => s.status), race, any];
