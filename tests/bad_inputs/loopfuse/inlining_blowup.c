void f0(void) { }
void f1(void) { f0(); f0(); }
void f2(void) { f1(); f1(); }
void f3(void) { f2(); f2(); }
void f4(void) { f3(); f3(); }
void f5(void) { f4(); f4(); }
void f6(void) { f5(); f5(); }
void f7(void) { f6(); f6(); }
void f8(void) { f7(); f7(); }
void f9(void) { f8(); f8(); }
void f10(void) { f9(); f9(); }
void f11(void) { f10(); f10(); }
void f12(void) { f11(); f11(); }
void f13(void) { f12(); f12(); }
void f14(void) { f13(); f13(); }
void f15(void) { f14(); f14(); }
void f16(void) { f15(); f15(); }
void f17(void) { f16(); f16(); }
void f18(void) { f17(); f17(); }
void f19(void) { f18(); f18(); }
void f20(void) { f19(); f19(); }
int main() { f20(); return 0; }
