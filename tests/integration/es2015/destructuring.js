//! value: {"a":1,"c":2,"rest":[3,4],"d":4,"swapped":[2,1]}
//! stdout: ""
const {a, b: [c, ...rest], d = 4} = {a: 1, b: [2, 3, 4]};
let x = 1, y = 2;
[x, y] = [y, x];
return {a, c, rest, d, swapped: [x, y]};
