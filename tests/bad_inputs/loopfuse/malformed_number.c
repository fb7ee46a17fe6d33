int main() {
  int x = 12abc;
  return 0;
}
