int main(void) {
  int y = 0;
  while (y < 3) y = y + 1;
  y = y | 1;
  return 0;
}
