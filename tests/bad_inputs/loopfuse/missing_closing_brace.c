int main() {
  int x = 0;
  while (x < 10) {
    x++;
