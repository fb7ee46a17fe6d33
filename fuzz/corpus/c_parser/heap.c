extern void *malloc(unsigned long);
extern void *calloc(unsigned long, unsigned long);
extern int __VERIFIER_nondet_int(void);
struct node { int v; struct { short x; } in; struct node *next; int *count; };
struct node *slots[4];
int *cells[2];
struct node *push(struct node *h, int v) { struct node *n = malloc(sizeof *n); n->v = v; n->next = h; return n; }
typedef struct { int n; struct node *p; } S;
void fill(S a[], int k) { for (int i = 0; i < k; i++) a[i].p = calloc(1, sizeof(struct node)); }
main() {
  struct node *h = 0;
  S arr[3];
  for (int i = 0; i < 3; i++) h = push(h, i);
  fill(arr, 3);
  cells[1] = malloc(sizeof(int));
  *cells[1] = h->next->v;
  slots[0] = h ? h->next : (struct node *)0;
  while (h != ((void *)0)) { h->in.x = 1; h = h->next; }
  if (slots[0] == 0 || arr[2].p->v != 0) reach_error();
  return 0;
}
