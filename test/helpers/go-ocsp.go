// golang.org/x/crypto/ocsp (Debian's golang-golang-x-crypto-dev, built offline) as an OCSP
// client for the tests: it makes requests and parses and verifies answers.
//
// One process serves many checks: one JSON request per stdin line, one JSON answer per stdout
// line, in order.
//
//	{"op":"request","cert":PEM,"issuer":PEM,"hash":"sha1"|"sha256"}
//	  ocsp.CreateRequest: answers the DER request, base64
//	{"op":"response","response":base64 DER,"issuer":PEM}
//	  ocsp.ParseResponse(der, issuer): the signature checked against the issuer; answers the
//	  status, serial, times and reason (x/crypto/ocsp does not expose responseExtensions: the
//	  nonce is checked by openssl, GnuTLS and Java)
package main

import (
	"bufio"
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"time"

	"golang.org/x/crypto/ocsp"
)

type request struct {
	Op       string `json:"op"`
	Cert     string `json:"cert"`
	Issuer   string `json:"issuer"`
	Hash     string `json:"hash"`
	Response string `json:"response"`
}

type answer struct {
	OK         bool   `json:"ok"`
	Error      string `json:"error,omitempty"`
	Request    string `json:"request,omitempty"`
	Status     string `json:"status,omitempty"`
	Serial     string `json:"serial,omitempty"`
	ThisUpdate string `json:"this_update,omitempty"`
	NextUpdate string `json:"next_update,omitempty"`
	RevokedAt  string `json:"revoked_at,omitempty"`
	Reason     int    `json:"reason"`
}

func parseCert(text string) (*x509.Certificate, error) {
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	return x509.ParseCertificate(block.Bytes)
}

func handle(r request) (answer, error) {
	issuer, err := parseCert(r.Issuer)
	if err != nil {
		return answer{}, err
	}
	switch r.Op {
	case "request":
		cert, err := parseCert(r.Cert)
		if err != nil {
			return answer{}, err
		}
		opts := &ocsp.RequestOptions{Hash: crypto.SHA1}
		if r.Hash == "sha256" {
			opts.Hash = crypto.SHA256
		}
		der, err := ocsp.CreateRequest(cert, issuer, opts)
		if err != nil {
			return answer{}, err
		}
		return answer{OK: true, Request: base64.StdEncoding.EncodeToString(der)}, nil
	case "response":
		der, err := base64.StdEncoding.DecodeString(r.Response)
		if err != nil {
			return answer{}, err
		}
		resp, err := ocsp.ParseResponse(der, issuer)
		if err != nil {
			return answer{}, err
		}
		a := answer{OK: true, Serial: hex.EncodeToString(resp.SerialNumber.Bytes()), ThisUpdate: resp.ThisUpdate.Format(time.RFC3339)}
		switch resp.Status {
		case ocsp.Good:
			a.Status = "good"
		case ocsp.Revoked:
			a.Status = "revoked"
			a.RevokedAt = resp.RevokedAt.Format(time.RFC3339)
			a.Reason = resp.RevocationReason
		default:
			a.Status = "unknown"
		}
		if !resp.NextUpdate.IsZero() {
			a.NextUpdate = resp.NextUpdate.Format(time.RFC3339)
		}
		return a, nil
	}
	return answer{}, errors.New("unknown op")
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var r request
		a := answer{}
		err := json.Unmarshal(in.Bytes(), &r)
		if err == nil {
			a, err = handle(r)
		}
		if err != nil {
			a = answer{OK: false, Error: err.Error()}
		}
		if err := out.Encode(a); err != nil {
			os.Exit(1)
		}
	}
}
