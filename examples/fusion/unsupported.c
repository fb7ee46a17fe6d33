int main(void) {
  int y = 0, z[2][3];
  while (y < 3) y = y + 1;
  z[1][y - 1] = y;
  return 0;
}
