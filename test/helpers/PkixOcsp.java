// Java's PKIX validator as an OCSP relying party for the tests: validates a certificate to a
// trust anchor with PKIXRevocationChecker in OCSP-only mode (no CRL fallback), the responder
// taken from the certificate's AIA, a nonce sent (jdk.security.certpath.ocspNonce, set by the
// caller) and checked. Run as a one-file program: java PkixOcsp.java <root.pem> <leaf.pem>
// Prints "VALID", or "REVOKED <reason> <revocation date>" (exit 2), or "INVALID <reason>: <message>" (exit 1).
import java.io.FileInputStream;
import java.security.Security;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateRevokedException;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

public class PkixOcsp {
  public static void main(String[] args) throws Exception {
    Security.setProperty("ocsp.enable", "true");
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    X509Certificate root;
    X509Certificate leaf;
    try (FileInputStream in = new FileInputStream(args[0])) { root = (X509Certificate) cf.generateCertificate(in); }
    try (FileInputStream in = new FileInputStream(args[1])) { leaf = (X509Certificate) cf.generateCertificate(in); }
    CertPath path = cf.generateCertPath(List.of(leaf));
    CertPathValidator validator = CertPathValidator.getInstance("PKIX");
    PKIXRevocationChecker checker = (PKIXRevocationChecker) validator.getRevocationChecker();
    checker.setOptions(EnumSet.of(PKIXRevocationChecker.Option.NO_FALLBACK));
    PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(root, null)));
    params.setRevocationEnabled(true);
    params.addCertPathChecker(checker);
    try {
      validator.validate(path, params);
      System.out.println("VALID");
    } catch (CertPathValidatorException e) {
      Throwable cause = e.getCause();
      if (e.getReason() == CertPathValidatorException.BasicReason.REVOKED && cause instanceof CertificateRevokedException) {
        CertificateRevokedException r = (CertificateRevokedException) cause;
        System.out.println("REVOKED " + r.getRevocationReason() + " " + r.getRevocationDate().toInstant());
        System.exit(2);
      }
      System.out.println("INVALID " + e.getReason() + ": " + e.getMessage());
      System.exit(1);
    }
  }
}
