int main() {
  int x = 0;
  x = x @ 1;
  return 0;
}
