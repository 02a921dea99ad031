// Go's crypto/x509 as a certificate and CRL checker for the tests (standard library only).
//
// One process serves many checks: one JSON request per stdin line, one JSON answer per stdout
// line, in order.
//
//	{"op":"cert","cert":PEM,"roots":[PEM],"intermediates":[PEM],"dns":"name"}
//	  parse the certificate and Verify it to the roots (any extended key usage; "dns" also checks
//	  the host name); answers the parsed names, key usage and extension OIDs
//	{"op":"crl","crl":PEM,"issuer":PEM}
//	  ParseRevocationList, then CheckSignatureFrom(issuer); answers the revoked serials
package main

import (
	"bufio"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

type request struct {
	Op            string   `json:"op"`
	Cert          string   `json:"cert"`
	Roots         []string `json:"roots"`
	Intermediates []string `json:"intermediates"`
	DNS           string   `json:"dns"`
	CRL           string   `json:"crl"`
	Issuer        string   `json:"issuer"`
}

type answer struct {
	OK          bool     `json:"ok"`
	Error       string   `json:"error,omitempty"`
	DNSNames    []string `json:"dns_names"`
	Emails      []string `json:"emails"`
	KeyUsage    int      `json:"key_usage"`
	ExtKeyUsage []int    `json:"ext_key_usage"`
	Extensions  []string `json:"extensions"`
	IsCA        bool     `json:"is_ca"`
	Permitted   []string `json:"permitted_dns_domains"`
	ChainLength int      `json:"chain_length"`
	Revoked     []string `json:"revoked"`
	Number      string   `json:"number"`
}

func oneBlock(text string, what string) ([]byte, error) {
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM block", what)
	}
	return block.Bytes, nil
}

func parseCert(text string, what string) (*x509.Certificate, error) {
	der, err := oneBlock(text, what)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return cert, nil
}

func pool(texts []string, what string) (*x509.CertPool, error) {
	p := x509.NewCertPool()
	for _, t := range texts {
		c, err := parseCert(t, what)
		if err != nil {
			return nil, err
		}
		p.AddCert(c)
	}
	return p, nil
}

func describe(c *x509.Certificate, a *answer) {
	a.DNSNames = c.DNSNames
	a.Emails = c.EmailAddresses
	a.KeyUsage = int(c.KeyUsage)
	for _, u := range c.ExtKeyUsage {
		a.ExtKeyUsage = append(a.ExtKeyUsage, int(u))
	}
	for _, e := range c.Extensions {
		a.Extensions = append(a.Extensions, e.Id.String())
	}
	a.IsCA = c.IsCA
	a.Permitted = c.PermittedDNSDomains
}

func checkCert(r request) answer {
	var a answer
	cert, err := parseCert(r.Cert, "cert")
	if err != nil {
		return answer{Error: err.Error()}
	}
	describe(cert, &a)
	roots, err := pool(r.Roots, "root")
	if err != nil {
		return answer{Error: err.Error()}
	}
	inters, err := pool(r.Intermediates, "intermediate")
	if err != nil {
		return answer{Error: err.Error()}
	}
	opts := x509.VerifyOptions{Roots: roots, Intermediates: inters, DNSName: r.DNS, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}
	chains, err := cert.Verify(opts)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	a.OK = true
	a.ChainLength = len(chains[0])
	return a
}

func checkCrl(r request) answer {
	der, err := oneBlock(r.CRL, "crl")
	if err != nil {
		return answer{Error: err.Error()}
	}
	crl, err := x509.ParseRevocationList(der)
	if err != nil {
		return answer{Error: err.Error()}
	}
	issuer, err := parseCert(r.Issuer, "issuer")
	if err != nil {
		return answer{Error: err.Error()}
	}
	a := answer{Number: crl.Number.String()}
	for _, rc := range crl.RevokedCertificates {
		a.Revoked = append(a.Revoked, fmt.Sprintf("%x", rc.SerialNumber))
	}
	if err := crl.CheckSignatureFrom(issuer); err != nil {
		a.Error = err.Error()
		return a
	}
	a.OK = true
	return a
}

func handle(line []byte) answer {
	var r request
	if err := json.Unmarshal(line, &r); err != nil {
		return answer{Error: "bad request: " + err.Error()}
	}
	switch r.Op {
	case "cert":
		return checkCert(r)
	case "crl":
		return checkCrl(r)
	}
	return answer{Error: errors.New("unknown op " + r.Op).Error()}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		if err := out.Encode(handle(in.Bytes())); err != nil {
			os.Exit(1)
		}
	}
}
