struct point { int x; int y; };
int main() {
  struct point p;
  return 0;
}
