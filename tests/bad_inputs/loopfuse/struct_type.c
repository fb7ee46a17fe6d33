struct node { int value; struct node *next; };
int main() {
  struct node n;
  n.value = 1;
  return 0;
}
