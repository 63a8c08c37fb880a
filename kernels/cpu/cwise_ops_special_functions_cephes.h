// The special functions Eigen lacks and TensorFlow computes with its own
// ports of Stephen Moshier's Cephes library: Dawson's integral, the
// exponential integral Ei, the Fresnel integrals C and S, and Spence's
// function. Each is a rational approximation on a few intervals; the
// coefficients are Cephes' (dawsn.c, ei.c, fresnl.c, spence.c).
//
// TensorFlow evaluates them in the element type itself (float in float,
// each coefficient rounded to it), with Horner steps of one multiply and
// one add (no fused multiply-add: its CPU build has none), and so do
// these, in the same order of operations, so float results round as
// TensorFlow's. Interval bounds, special values (Expint(x < 0) and
// Spence(x < 0) are NaN) and the sign handling follow TensorFlow 2.21.
#ifndef DFLOW_KERNELS_CPU_CWISE_OPS_SPECIAL_FUNCTIONS_CEPHES_H_
#define DFLOW_KERNELS_CPU_CWISE_OPS_SPECIAL_FUNCTIONS_CEPHES_H_

#include <cmath>
#include <cstddef>
#include <limits>

namespace dflow {
namespace cephes {

// The coefficient tables keep Cephes' two-per-line layout.
// clang-format off

// c[0] x^(N-1) + ... + c[N-1], each coefficient rounded to T.
template <typename T, size_t N>
T Polynomial(T x, const double (&c)[N]) {
  T r = static_cast<T>(c[0]);
  for (size_t i = 1; i < N; ++i) r = r * x + static_cast<T>(c[i]);
  return r;
}

constexpr double kPi = 3.14159265358979323846;

// --- Dawson's integral exp(-x^2) int_0^x exp(t^2) dt. ---

template <typename T>
T Dawson(T x) {
  // |x| < 3.25: x P(x^2) / Q(x^2).
  static constexpr double kAn[] = {
      1.13681498971755972054E-11, 8.49262267667473811108E-10,
      1.94434204175553054283E-8,  9.53151741254484363489E-7,
      3.07828309874913200438E-6,  3.52513368520288738649E-4,
      -8.50149846724410912031E-4, 4.22618223005546594270E-2,
      -9.17480371773452345351E-2, 9.99999999999999994612E-1};
  static constexpr double kAd[] = {
      2.40372073066762605484E-11, 1.48864681368493396752E-9,
      5.21265281010541664570E-8,  1.27258478273186970203E-6,
      2.32490249820789513991E-5,  3.25524741826057911661E-4,
      3.48805814657162590916E-3,  2.79448531198828973716E-2,
      1.58874241960120565368E-1,  5.74918629489320327824E-1,
      1.00000000000000000539E0};
  // 3.25 <= |x| < 6.25: (1/x + P(1/x^2) / (x^3 Q(1/x^2))) / 2.
  static constexpr double kBn[] = {
      5.08955156417900903354E-1,  -2.44754418142697847934E-1,
      9.41512335303534411857E-2,  -2.18711255142039025206E-2,
      3.66207612329569181322E-3,  -4.23209114460388756528E-4,
      3.59641304793896631888E-5,  -2.14640351719968974225E-6,
      9.10010780076391431042E-8,  -2.40274520828250956942E-9,
      3.59233385440928410398E-11};
  static constexpr double kBd[] = {
      1.0,
      -6.31839869873368190192E-1, 2.36706788228248691528E-1,
      -5.31806367003223277662E-2, 8.48041718586295374409E-3,
      -9.47996768486665330168E-4, 7.81025592944552338085E-5,
      -4.55875153252442634831E-6, 1.89100358111421846170E-7,
      -4.91324691331920606875E-9, 7.18466403235734541950E-11};
  // 6.25 <= |x| < 1e9: the same form with other coefficients.
  static constexpr double kCn[] = {
      -5.90592860534773254987E-1, 6.29235242724368800674E-1,
      -1.72858975380388136411E-1, 1.64837047825189632310E-2,
      -4.86827613020462700845E-4};
  static constexpr double kCd[] = {
      1.0,
      -2.69820057197544900361E0,  1.73270799045947845857E0,
      -3.93708582281939493482E-1, 3.44278924041233391079E-2,
      -9.73655226040941223894E-4};
  const T half = T(0.5);
  const T a = std::abs(x);
  T d;
  if (a < T(3.25)) {
    const T a2 = a * a;
    d = (a * Polynomial(a2, kAn)) / Polynomial(a2, kAd);
  } else if (a < T(1.0e9)) {
    const T inv = T(1) / a;
    const T inv2 = inv * inv;
    const T z = a < T(6.25)
                    ? Polynomial(inv2, kBn) / (a * Polynomial(inv2, kBd))
                    : Polynomial(inv2, kCn) / (a * Polynomial(inv2, kCd));
    d = half * (inv2 * z + inv);
  } else {
    // As TensorFlow: 0.5 / x of the signed x, then the sign flip below, so
    // x < -1e9 gives +0.5 / |x| (Dawson's integral is odd: a TensorFlow
    // quirk kept for its values).
    d = half / x;
  }
  return x < T(0) ? -d : d;
}

// --- The exponential integral Ei(x) = -int_{-x}^inf exp(-t) / t dt. ---

template <typename T>
T ExpIntegral(T x) {
  static constexpr double kEuler = 0.5772156649015329;
  // 0 < x < 2: Ei(x) - EUL - ln(x) = x A(x) / B(x).
  static constexpr double kA[] = {
      -5.350447357812542947283E0, 2.185049168816613393830E2,
      -4.176572384826693777058E3, 5.541176756393557601232E4,
      -3.313381331178144034309E5, 1.592627163384945414220E6};
  static constexpr double kB[] = {
      1.0,
      -5.250547959112862969197E1, 1.259616186786790571525E3,
      -1.756549581973534652631E4, 1.493062117002725991967E5,
      -7.294949239640527645655E5, 1.592627163384945429726E6};
  // x >= 2: x exp(-x) Ei(x) - 1 = (1/x) P(1/x) / Q(1/x) on [2, 4), [4, 8),
  // [8, 16), [16, 32), [32, 64) and [64, inf).
  static constexpr double kA6[] = {
      1.981808503259689673238E-2,  -1.271645625984917501326E0,
      -2.088160335681228318920E0,  2.755544509187936721172E0,
      -4.409507048701600257171E-1, 4.665623805935891391017E-2,
      -1.545042679673485262580E-3, 7.059980605299617478514E-5};
  static constexpr double kB6[] = {
      1.0,
      1.476498670914921440652E0,  5.629177174822436244827E-1,
      1.699017897879307263248E-1, 2.291647179034212017463E-2,
      4.450150439728752875043E-3, 1.727439612206521482874E-4,
      3.953167195549672482304E-5};
  static constexpr double kA5[] = {
      -1.373215375871208729803E0, -7.084559133740838761406E-1,
      1.580806855547941010501E0,  -2.601500427425622944234E-1,
      2.994674694113713763365E-2, -1.038086040188744005513E-3,
      4.371064420753005429514E-5, 2.141783679522602903795E-6};
  static constexpr double kB5[] = {
      1.0,
      8.585231423622028380768E-1,  4.483285822873995129957E-1,
      7.687932158124475434091E-2,  2.449868241021887685904E-2,
      8.832165941927796567926E-4,  4.590952299511353531215E-4,
      -4.729848351866523044863E-6, 2.665195537390710170105E-6};
  static constexpr double kA2[] = {
      -2.106934601691916512584E0,  1.732733869664688041885E0,
      -2.423619178935841904839E-1, 2.322724180937565842585E-2,
      2.372880440493179832059E-4,  -8.343219561192552752335E-5,
      1.363408795605250394881E-5,  -3.655412321999253963714E-7,
      1.464941733975961318456E-8,  6.176407863710360207074E-10};
  static constexpr double kB2[] = {
      1.0,
      -2.298062239901678075778E-1, 1.105077041474037862347E-1,
      -1.566542966630792353556E-2, 2.761106850817352773874E-3,
      -2.089148012284048449115E-4, 1.708528938807675304186E-5,
      -4.459311796356686423199E-7, 1.394634930353847498145E-8,
      6.150865933977338354138E-10};
  static constexpr double kA4[] = {
      -2.458119367674020323359E-1, -1.483382253322077687183E-1,
      7.248291795735551591813E-2,  -1.348315687380940523823E-2,
      1.342775069788636972294E-3,  -7.942465637159712264564E-5,
      2.644179518984235952241E-6,  -4.239473659313765177195E-8};
  static constexpr double kB4[] = {
      1.0,
      -1.044225908443871106315E-1, -2.676453128101402655055E-1,
      9.695000254621984627876E-2,  -1.601745692712991078208E-2,
      1.496414899205908021882E-3,  -8.462452563778485013756E-5,
      2.728938403476726394024E-6,  -4.239462431819542051337E-8};
  static constexpr double kA7[] = {
      1.212561118105456670844E-1, -5.823133179043894485122E-1,
      2.348887314557016779211E-1, -3.040034318113248237280E-2,
      1.510082146865190661777E-3, -2.523137095499571377122E-5};
  static constexpr double kB7[] = {
      1.0,
      -1.002252150365854016662E0, 2.928709694872224144953E-1,
      -3.337004338674007801307E-2, 1.560544881127388842819E-3,
      -2.523137093603234562648E-5};
  static constexpr double kA3[] = {
      -7.657847078286127362028E-1, 6.886192415566705051750E-1,
      -2.132598113545206124553E-1, 3.346107552384193813594E-2,
      -3.076541477344756050249E-3, 1.747119316454907477380E-4,
      -6.103711682274170530369E-6, 1.218032765428652199087E-7,
      -1.086076102793290233007E-9};
  static constexpr double kB3[] = {
      1.0,
      -1.888802868662308731041E0,  1.066691687211408896850E0,
      -2.751915982306380647738E-1, 3.930852688233823569726E-2,
      -3.414684558602365085394E-3, 1.866844370703555398195E-4,
      -6.345146083130515357861E-6, 1.239754287483206878024E-7,
      -1.086076102793126632978E-9};
  if (x < T(0)) return std::numeric_limits<T>::quiet_NaN();
  if (x < T(2)) {
    const T f = Polynomial(x, kA) / Polynomial(x, kB);
    return x * f + T(kEuler) + std::log(x);
  }
  const T w = T(1) / x;
  T f;
  if (x < T(4)) {
    f = Polynomial(w, kA6) / Polynomial(w, kB6);
  } else if (x < T(8)) {
    f = Polynomial(w, kA5) / Polynomial(w, kB5);
  } else if (x < T(16)) {
    f = Polynomial(w, kA2) / Polynomial(w, kB2);
  } else if (x < T(32)) {
    f = Polynomial(w, kA4) / Polynomial(w, kB4);
  } else if (x < T(64)) {
    f = Polynomial(w, kA7) / Polynomial(w, kB7);
  } else {
    f = Polynomial(w, kA3) / Polynomial(w, kB3);
  }
  f = w * f + T(1);
  return std::exp(x) * w * f;
}

// --- The Fresnel integrals C(x) = int_0^x cos(pi t^2 / 2) dt and S(x). ---

// For x^2 >= 2.5625 (x >= 0): 1/2 -+ (f(x) trig + g(x) trig') / (pi x),
// f and g rational in 1 / (pi x^2)^2.
template <typename T>
T FresnelAsymptotic(T x, bool sine) {
  static constexpr double kFn[] = {
      4.21543555043677546506E-1,  1.43407919780758885261E-1,
      1.15220955073585758835E-2,  3.45017939782574027900E-4,
      4.63613749287867322088E-6,  3.05568983790257605827E-8,
      1.02304514164907233465E-10, 1.72010743268161828879E-13,
      1.34283276233062758925E-16, 3.76329711269987889006E-20};
  static constexpr double kFd[] = {
      1.0,
      7.51586398353378947175E-1,  1.16888925859191382142E-1,
      6.44051526508858611005E-3,  1.55934409164153020873E-4,
      1.84627567348930545870E-6,  1.12699224763999035261E-8,
      3.60140029589371370404E-11, 5.88754533621578410010E-14,
      4.52001434074129701496E-17, 1.25443237090011264384E-20};
  static constexpr double kGn[] = {
      5.04442073643383265887E-1,  1.97102833525523411709E-1,
      1.87648584092575249293E-2,  6.84079380915393090172E-4,
      1.15138826111884280931E-5,  9.82852443688422223854E-8,
      4.45344415861750144738E-10, 1.08268041139020870318E-12,
      1.37555460633261799868E-15, 8.36354435630677421531E-19,
      1.86958710162783235106E-22};
  static constexpr double kGd[] = {
      1.0,
      1.47495759925128324529E0,   3.37748989120019970451E-1,
      2.53603741420338795122E-2,  8.14679107184306179049E-4,
      1.27545075667729118702E-5,  1.04314589657571990585E-7,
      4.60680728146520428211E-10, 1.10273215066240270757E-12,
      1.38796531259578871258E-15, 8.39158816283118707363E-19,
      1.86958710162783236342E-22};
  const T pi = T(kPi);
  const T x2 = x * x;
  const T t = T(1) / (pi * x2);
  const T u = t * t;
  const T f = T(1) - u * (Polynomial(u, kFn) / Polynomial(u, kFd));
  const T g = (t * Polynomial(u, kGn)) / Polynomial(u, kGd);
  const T z = T(1.5707963267948966) * x2;
  const T c = std::cos(z);
  const T s = std::sin(z);
  const T y = T(1) / (pi * x);
  if (sine) {
    T v = f * c;
    v += g * s;
    return T(0.5) - v * y;
  }
  T v = f * s;
  v -= g * c;
  return T(0.5) + v * y;
}

template <typename T>
T Fresnel(T x, bool sine) {
  static constexpr double kCn[] = {
      -4.98843114573573548651E-8, 9.50428062829859605134E-6,
      -6.45191435683965050962E-4, 1.88843319396703850064E-2,
      -2.05525900955013891793E-1, 9.99999999999999998822E-1};
  static constexpr double kCd[] = {
      3.99982968972495980367E-12, 9.15439215774657478799E-10,
      1.25001862479598821474E-7,  1.22262789024179030997E-5,
      8.68029542941784300606E-4,  4.12142090722199792936E-2,
      1.00000000000000000118E0};
  static constexpr double kSn[] = {
      -2.99181919401019853726E3,  7.08840045257738576863E5,
      -6.29741486205862506537E7,  2.54890880573376359104E9,
      -4.42979518059697779103E10, 3.18016297876567817986E11};
  static constexpr double kSd[] = {
      1.0,
      2.81376268889994315696E2,  4.55847810806532581675E4,
      5.17343888770096400730E6,  4.19320245898111231129E8,
      2.24411795645340920940E10, 6.07366389490084639049E11};
  const T a = std::abs(x);
  if (a > T(36974.0)) return x < T(0) ? T(-0.5) : T(0.5);
  const T x2 = x * x;
  T r;
  if (x2 < T(2.5625)) {
    const T a2 = a * a;
    const T a4 = a2 * a2;
    r = sine ? (a * a2) * Polynomial(a4, kSn) / Polynomial(a4, kSd)
             : a * Polynomial(a4, kCn) / Polynomial(a4, kCd);
  } else {
    r = FresnelAsymptotic(a, sine);
  }
  return x < T(0) ? -r : r;
}

// --- Spence's function int_1^x log(t) / (1 - t) dt, x >= 0. ---

template <typename T>
T Spence(T x) {
  static constexpr double kA[] = {
      4.65128586073990045278E-5, 7.31589045238094711071E-3,
      1.33847639578309018650E-1, 8.79691311754530315341E-1,
      2.71149851196553469920E0,  4.25697156008121755724E0,
      3.29771340985225106936E0,  1.00000000000000000126E0};
  static constexpr double kB[] = {
      6.90990488912553276999E-4, 2.54043763932544379113E-2,
      2.82974860602568089943E-1, 1.41172597751831069617E0,
      3.63800533345137075418E0,  5.03278880143316990390E0,
      3.54771340985225096217E0,  9.99999999999999998740E-1};
  const T pi2_over_6 = T(kPi * kPi / 6.0);
  if (x < T(0)) return std::numeric_limits<T>::quiet_NaN();
  if (x == T(0)) return pi2_over_6;
  if (x == T(1)) return T(0);
  // Reduce to y in (0, 2) with reflection formulas for y < 1/2 and x > 3/2.
  const T y = x < T(2) ? x : T(1) / x;
  T w;
  if (T(1.5) < y) {
    w = T(1) / y - T(1);
  } else if (y < T(0.5)) {
    w = -y;
  } else {
    w = y - T(1);
  }
  T s = -w * (Polynomial(w, kA) / Polynomial(w, kB));
  const T z = std::log(y);
  if (y < T(0.5)) s = -z * std::log1p(-y) + pi2_over_6 - s;
  if (T(1.5) < x) s = -T(0.5) * z * z - s;
  return s;
}

// clang-format on

}  // namespace cephes
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_CWISE_OPS_SPECIAL_FUNCTIONS_CEPHES_H_
