int main() {
  char *s = "abc;
  return 0;
}
