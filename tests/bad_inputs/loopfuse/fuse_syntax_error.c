int main() {
  int y x = 0;
  return 0;
}
