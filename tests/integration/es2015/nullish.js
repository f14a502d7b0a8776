//! value: ["d",0,"e","f",[5,1,2]]
//! stdout: ""
let x = null, y = 1, z = 1;
x ??= 5;
y ||= 9;
z &&= 2;
return [null ?? 'd', 0 ?? 'd', '' || 'e', 0 || 'f', [x, y, z]];
