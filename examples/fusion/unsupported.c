int main(void) {
  int y = 0, z = 5;
  while (y < 3) y = y + 1;
  int *p = y > 2 ? &y : &z;
  return *(p + 1);
}
