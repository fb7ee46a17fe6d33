int main() {
  int x = 1.5e3;
  return 0;
}
