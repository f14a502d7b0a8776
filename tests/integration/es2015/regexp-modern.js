//! value: ["2024","05","42",["a1","a2"]]
//! stdout: ""
const m = /(?<y>\d{4})-(?<m>\d{2})/u.exec('on 2024-05');
return [m.groups.y, m.groups.m, /(?<=\$)\d+/.exec('cost $42')[0], [...'a1 a2'.matchAll(/a\d/g)].map(x => x[0])];
