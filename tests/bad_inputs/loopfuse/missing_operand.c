int main() {
  int x = 1 + ;
  return 0;
}
