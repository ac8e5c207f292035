package io.infermark.perturbation.design;

/**
 * Arithmetic in the finite field GF(q), q = p^k a prime power, by lookup tables. Element {@code e}
 * stands for the polynomial {@code Σ c_i x^i} with base-{@code p} digits {@code c_i} of {@code e};
 * arithmetic is modulo the first monic irreducible polynomial of degree {@code k} in increasing
 * order of its coefficient digits (for GF(4): x²+x+1, GF(8): x³+x+1, GF(9): x²+1, GF(16): x⁴+x+1).
 * For a prime q this is arithmetic mod q. Immutable.
 */
public final class GaloisField {

  /** The largest order supported: tables grow as q². */
  public static final int MAX_ORDER = 256;

  private final int q;
  private final int p;
  private final int k;
  private final int[] modulus;
  private final int[][] add;
  private final int[][] mul;

  private GaloisField(int q, int p, int k) {
    this.q = q;
    this.p = p;
    this.k = k;
    this.modulus = k == 1 ? new int[] {0, 1} : irreducible(p, k);
    this.add = new int[q][q];
    this.mul = new int[q][q];
    for (int a = 0; a < q; a++) {
      for (int b = 0; b < q; b++) {
        add[a][b] = addPoly(a, b);
        mul[a][b] = mulPoly(a, b);
      }
    }
  }

  /** GF(q); q must be a prime power in [2, {@value #MAX_ORDER}]. */
  public static GaloisField of(int q) {
    if (q < 2 || q > MAX_ORDER) {
      throw new IllegalArgumentException("field order must be in [2, " + MAX_ORDER + "], was " + q);
    }
    int p = smallestPrimeFactor(q);
    int k = 0;
    int r = q;
    while (r % p == 0) {
      r /= p;
      k++;
    }
    if (r != 1) {
      throw new IllegalArgumentException("field order must be a prime power, was " + q);
    }
    return new GaloisField(q, p, k);
  }

  /** True when {@code n} is a prime power (n >= 2). */
  public static boolean isPrimePower(int n) {
    if (n < 2) {
      return false;
    }
    int p = smallestPrimeFactor(n);
    while (n % p == 0) {
      n /= p;
    }
    return n == 1;
  }

  /** The field's order q. */
  public int order() {
    return q;
  }

  /** The characteristic p. */
  public int characteristic() {
    return p;
  }

  /** The degree k (q = p^k). */
  public int degree() {
    return k;
  }

  /** The modulus' coefficients, constant term first (for a prime field, x). */
  public int[] modulus() {
    return modulus.clone();
  }

  /** a + b. */
  public int add(int a, int b) {
    return add[a][b];
  }

  /** a · b. */
  public int multiply(int a, int b) {
    return mul[a][b];
  }

  private int addPoly(int a, int b) {
    int r = 0;
    int place = 1;
    for (int i = 0; i < k; i++) {
      r += ((a % p + b % p) % p) * place;
      a /= p;
      b /= p;
      place *= p;
    }
    return r;
  }

  private int mulPoly(int a, int b) {
    int[] x = digits(a, p, k);
    int[] y = digits(b, p, k);
    int[] prod = new int[2 * k - 1];
    for (int i = 0; i < k; i++) {
      for (int j = 0; j < k; j++) {
        prod[i + j] = (prod[i + j] + x[i] * y[j]) % p;
      }
    }
    // Reduce modulo the monic modulus, highest degree first.
    for (int d = prod.length - 1; d >= k; d--) {
      int c = prod[d];
      if (c == 0) {
        continue;
      }
      for (int i = 0; i <= k; i++) {
        prod[d - k + i] = ((prod[d - k + i] - c * modulus[i]) % p + p) % p;
      }
    }
    int r = 0;
    for (int i = k - 1; i >= 0; i--) {
      r = r * p + prod[i];
    }
    return r;
  }

  private static int[] digits(int e, int p, int k) {
    int[] d = new int[k];
    for (int i = 0; i < k; i++) {
      d[i] = e % p;
      e /= p;
    }
    return d;
  }

  /** The first monic polynomial of degree k with no root-free factorisation, i.e. irreducible over GF(p). */
  private static int[] irreducible(int p, int k) {
    int count = 1;
    for (int i = 0; i < k; i++) {
      count *= p;
    }
    for (int low = 0; low < count; low++) {
      int[] poly = new int[k + 1];
      int[] d = digits(low, p, k);
      System.arraycopy(d, 0, poly, 0, k);
      poly[k] = 1;
      if (isIrreducible(poly, p)) {
        return poly;
      }
    }
    throw new IllegalStateException("no irreducible polynomial of degree " + k + " over GF(" + p + ")");
  }

  /** Irreducible iff no monic polynomial of degree 1..k/2 divides it. */
  private static boolean isIrreducible(int[] poly, int p) {
    int k = poly.length - 1;
    for (int deg = 1; deg <= k / 2; deg++) {
      int count = 1;
      for (int i = 0; i < deg; i++) {
        count *= p;
      }
      for (int low = 0; low < count; low++) {
        int[] divisor = new int[deg + 1];
        System.arraycopy(digits(low, p, deg), 0, divisor, 0, deg);
        divisor[deg] = 1;
        if (divides(divisor, poly, p)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean divides(int[] divisor, int[] poly, int p) {
    int[] r = poly.clone();
    int dd = divisor.length - 1;
    for (int d = r.length - 1; d >= dd; d--) {
      int c = r[d];
      if (c == 0) {
        continue;
      }
      for (int i = 0; i <= dd; i++) {
        r[d - dd + i] = ((r[d - dd + i] - c * divisor[i]) % p + p) % p;
      }
    }
    for (int i = 0; i < dd; i++) {
      if (r[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static int smallestPrimeFactor(int n) {
    for (int f = 2; (long) f * f <= n; f++) {
      if (n % f == 0) {
        return f;
      }
    }
    return n;
  }

  @Override
  public String toString() {
    return "GF(" + q + ")";
  }
}
