//! value: null
//! stdout: "Point { x: 1, y: 2 }\n"
class Point { constructor(x, y) { this.x = x; this.y = y; } }
console.log(new Point(1, 2));
return null;
