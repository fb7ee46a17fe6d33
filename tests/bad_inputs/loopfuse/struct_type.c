struct node { int value; int *links[2]; };
int main() {
  struct node n;
  n.value = 1;
  return 0;
}
