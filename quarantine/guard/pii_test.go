package guard

import (
	"fmt"
	"slices"
	"testing"
)

func TestScanPII(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // "TYPE start end"
	}{
		{"email", "mail jo.doe+x@example.co.uk now", []string{"EMAIL_ADDRESS 5 27"}},
		{"us phone", "call 415-555-0132 today", []string{"PHONE_NUMBER 5 17"}},
		{"intl phone", "tel +41 (0)96 471 07 95", []string{"PHONE_NUMBER 4 23"}},
		{"phone ext", "(898)666-3621x0135", []string{"PHONE_NUMBER 0 18"}},
		{"bare ten digits", "ring 9498777106", []string{"PHONE_NUMBER 5 15"}},
		{"card", "card 4111 1111 1111 1111 exp", []string{"CREDIT_CARD 5 24"}},
		{"card run", "pay with 4007070753690781.", []string{"CREDIT_CARD 9 25"}},
		{"ssn", "ssn 460-89-9847", []string{"US_SSN 4 15"}},
		{"ipv4", "host 10.0.12.7 down", []string{"IP_ADDRESS 5 14"}},
		{"ipv6", "addr 2001:db8::8a2e:370:7334", []string{"IP_ADDRESS 5 28"}},
		{"iban", "iban GB82 WEST 1234 5698 7654 32 ok", []string{"IBAN_CODE 5 32"}},
		{"iban lower", "gb42nawi04454264788619", []string{"IBAN_CODE 0 22"}},
		{"address", "lives at 221 Baker Street, London", []string{"STREET_ADDRESS 9 25"}},
		{"multibyte offsets are bytes", "é a@b.io", []string{"EMAIL_ADDRESS 3 9"}},
		// Look-alikes that must pass.
		{"card failing luhn", "order 4111 1111 1111 1112", nil},
		{"phone-shaped card group", "+447700677662", []string{"PHONE_NUMBER 0 13"}},
		{"invalid ssn area", "ref 900-12-3456", nil},
		{"version", "go 1.22.3.4.1 released", nil},
		{"bad octet", "999.1.1.1", nil},
		{"iban bad checksum", "GB82WEST12345698765433", nil},
		{"date", "on 2023-01-15 we met", nil},
		{"year", "founded in 1977", nil},
		{"amount", "costs 1,234,567.89", nil},
		{"zip", "ZIP: 75534-030", nil},
		{"year range", "from 2001-2003 and pages 2784-2799", nil},
		{"decimal", "odds ratio 1035.7828", nil},
		{"house number", "at 675 62314 Mellemvej 32", nil},
		{"time", "at 12:30:45 sharp", nil},
		{"uuid", "id 3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range scanPII(tc.in) {
				got = append(got, fmt.Sprintf("%s %d %d", f.Type, f.Start, f.End))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("scanPII(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestPIIRedactPolicy(t *testing.T) {
	in := "reach me at ann@example.org or 415-555-0132, card 4111111111111111, ssn 460-89-9847, ip 10.1.2.3, iban GB82WEST12345698765432"
	want := "reach me at [EMAIL_REDACTED] or [PHONE_REDACTED], card [CC_REDACTED], ssn [SSN_REDACTED], ip [IP_REDACTED], iban [IBAN_REDACTED]"
	res := newTestGuard(t, Policy{PII: PIIRedact}).Check(Input{Text: in})
	if res.Redacted != want {
		t.Errorf("Check(%q).Redacted = %q, want %q", in, res.Redacted, want)
	}
	if !res.HasPII {
		t.Errorf("Check(%q).HasPII = false, want true", in)
	}
	// Encrypt mode keeps the text.
	res = newTestGuard(t, Policy{PII: PIIEncrypt}).Check(Input{Text: in})
	if res.Redacted != in || !res.HasPII {
		t.Errorf("encrypt mode: Check(%q) = %q, HasPII %v; want text unchanged, HasPII true", in, res.Redacted, res.HasPII)
	}
}

// TestAccessDetails: a PIN or its hint, a card's last digits, a door
// code and a security answer are personal data (they open a person's
// money or home); "pin the version" and a card's type are not.
func TestAccessDetails(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"My bank PIN hint is the dog's birthday", true},
		{"PIN: the year we met", true},
		{"the pin code of the garage is 0420", true},
		{"the Visa card ending 4417 is the one for travel", true},
		{"the account ends in 0042", true},
		{"the alarm code is 2580", true},
		{"security answer: Rex", true},
		{"pin the version of golangci-lint in CI", false},
		{"the PIN entry dialog of gpg-agent needs a tty", false},
		{"the card component ends the list", false},
		{"the status code is 404 when the route is missing", false},
	} {
		got := slices.ContainsFunc(scanPII(tc.text), func(f Finding) bool { return f.Type == PIIAccess })
		if got != tc.want {
			t.Errorf("scanPII(%q) finds access details: %v, want %v", tc.text, got, tc.want)
		}
	}
}
