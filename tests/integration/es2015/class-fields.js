//! value: [3,2,0,"private"]
//! stdout: ""
class C {
    #n = 1;
    static count = 0;
    static #secret() { return 'private'; }
    inc() { C.count++; return ++this.#n; }
    static reveal() { return C.#secret(); }
}
const c = new C();
c.inc();
return [c.inc(), C.count, Object.keys(c).length, C.reveal()];
