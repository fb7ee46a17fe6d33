int main() {
  int x = 0; /* never closed
  return 0;
}
