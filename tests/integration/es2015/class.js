//! value: [42,3,"B","A"]
//! stdout: ""
class A {
    constructor(x) { this.x = x; }
    get double() { return this.x * 2; }
    static make() { return new A(21); }
}
class B extends A {
    get double() { return super.double + 1; }
}
return [A.make().double, new B(1).double, B.name, Object.getPrototypeOf(B).name];
