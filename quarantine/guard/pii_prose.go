package guard

import (
	"regexp"
	"strings"
)

// Personal data in forms the format rules of pii.go do not read:
// international phone numbers, spelled-out e-mail addresses, a date of
// birth, financial figures about a person, health details, and what opens
// a person's account or home.

// More personal data types.
const (
	PIIDateOfBirth = "DATE_OF_BIRTH"
	PIIFinancial   = "FINANCIAL"
	PIIHealth      = "HEALTH"
	// PIIAccess is what opens a person's money or home: a PIN or its
	// hint, a card's last digits, a door or alarm code, a security
	// answer.
	PIIAccess = "ACCESS_DETAILS"
)

const monthPat = `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

var (
	// International numbers written with a leading + and groups of one to
	// four digits: "+33 6 12 34 56 78", "+49 (0)30 1234567".
	intlPhoneRe = regexp.MustCompile(`\+\d{1,3}(?:[ .\-]?\(?\d{1,4}\)?){2,7}`)
	// "john dot smith at example dot com", "jane (at) corp [dot] io".
	spelledEmailRe = regexp.MustCompile(`(?i)\b([a-z0-9_\-]+(?:\s+(?:dot|\[dot\]|\(dot\))\s+[a-z0-9_\-]+)*)\s+(?:at|\[at\]|\(at\))\s+[a-z0-9\-]+(?:\s+(?:dot|\[dot\]|\(dot\))\s+[a-z]{2,})+\b`)
	emailCueRe     = regexp.MustCompile(`(?i)\b(?:e-?mail|mail|write to|contact|reach|address|inbox)\b[^.\n]{0,20}$`)
	// "born 14 March 1987", "date of birth is 1990-07-21", "DOB: 03/04/1985".
	dobRe = regexp.MustCompile(`(?i)\b(?:born(?: on)?|date of birth|d\.?o\.?b\.?|birth ?date|birthday)\b[^.\n]{0,20}?(?:\d{1,2}(?:st|nd|rd|th)?[ ./\-]+(?:` + monthPat + `|\d{1,2})[ ./\-,]+\d{2,4}|\d{4}-\d{2}-\d{2}|` + monthPat + `\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})`)
	// A person's money: "the salary of Anna Berg is 84,000 EUR".
	financialRe = regexp.MustCompile(`(?i)\b(?:salary|income|earns|wages?|paycheck|bank balance|account balance|net worth|owes|debts?|mortgage|credit score|tax return|bonus)\b[^.\n]{0,40}?(?:[$€£¥]\s?\d[\d,.]*|\b\d[\d,.]*\s*(?:k|eur|euros?|usd|dollars?|gbp|pounds?|chf|sek|nok|dkk)\b)`)
	// A named person's health: "Peter was diagnosed with ...", "Maria
	// takes 20 mg of ...". A name or a personal pronoun must lead.
	healthRe = regexp.MustCompile(`\b(?:[A-Z][a-z]+(?:'s)?|[Hh]e|[Ss]he|I|[Mm]y (?:wife|husband|son|daughter|mother|father|partner|colleague|manager))\s+(?:was |is |has been |got |had |has )?(?:diagnosed with|suffers? from|suffering from|takes \d+(?:\.\d+)?\s?(?:mg|mcg|ml|units)\b|is taking \d+|was prescribed|is prescribed|is allergic to|is pregnant|has (?:type [12] )?(?:diabetes|cancer|hiv|aids|epilepsy|asthma|depression|bipolar disorder|schizophrenia|adhd|dementia|parkinson'?s|alzheimer'?s)|is in (?:rehab|therapy|chemotherapy)|(?:had|has) (?:a |an )?(?:surgery|operation|miscarriage|abortion|stroke|heart attack))`)
)

var (
	// "my PIN hint is ...", "PIN: 4417", "pin code 0000".
	pinRe = regexp.MustCompile(`\b(?:PIN|[Pp]in (?:code|number|hint)|PIN (?:code|number|hint))\b[^.\n]{0,30}?(?:\bis\b|\bwas\b|:|=|\b\d{4,8}\b)`)
	// "card ending 4417", "the account ends in 0042".
	cardEndRe = regexp.MustCompile(`(?i)\b(?:card|account)\s+(?:number\s+)?(?:ending|ends)\s+(?:in\s+|with\s+)?\d{4}\b`)
	// "the door code to the office is 4417", "alarm code: 1234".
	doorCodeRe = regexp.MustCompile(`(?i)\b(?:door|gate|alarm|safe|garage|entry|building|keypad|lock)\s+code\b[^.\n]{0,30}?\b\d{4,8}\b`)
	// "the security answer is ...", "mother's maiden name".
	securityRe = regexp.MustCompile(`(?i)\b(?:security (?:question|answer)s?|mother'?s maiden name)\b`)
)

// accessPII finds access details (PIIAccess) in one chunk.
func accessPII(text, lower string, add func(typ string, a, b int, reason string)) {
	if !containsAny(lower, []string{"pin", "ending", "ends", "code", "security", "maiden"}) {
		return
	}
	for _, re := range []*regexp.Regexp{pinRe, cardEndRe, doorCodeRe, securityRe} {
		for _, m := range re.FindAllStringIndex(text, -1) {
			add(PIIAccess, m[0], m[1], "what opens a person's account or home (a PIN, a card's last digits, a code)")
		}
	}
}

// morePII finds the personal data above in one chunk.
func morePII(text string, add func(typ string, a, b int, reason string)) {
	if strings.IndexByte(text, '+') >= 0 {
		for _, m := range intlPhoneRe.FindAllStringIndex(text, -1) {
			if d := countDigits(text[m[0]:m[1]]); d >= 8 && d <= 15 {
				add(PIIPhone, m[0], m[1], "international phone number")
			}
		}
	}
	lower := asciiLower(text)
	if (strings.Contains(lower, " at ") || strings.Contains(lower, "(at)") || strings.Contains(lower, "[at]")) && (strings.Contains(lower, " dot ") || strings.Contains(lower, "[dot]") || strings.Contains(lower, "(dot)")) {
		for _, m := range spelledEmailRe.FindAllStringSubmatchIndex(text, -1) {
			local := asciiLower(text[m[2]:m[3]])
			if strings.Contains(local, "dot") || emailCueRe.MatchString(text[:m[0]]) {
				add(PIIEmail, m[0], m[1], "e-mail address spelled out")
			}
		}
	}
	accessPII(text, lower, add)
	if containsAny(lower, []string{"born", "birth", "dob", "d.o.b"}) {
		for _, m := range dobRe.FindAllStringIndex(text, -1) {
			add(PIIDateOfBirth, m[0], m[1], "date of birth")
		}
	}
	if containsAny(lower, []string{"salary", "income", "earns", "wage", "paycheck", "balance", "net worth", "owes", "debt", "mortgage", "credit score", "tax return", "bonus"}) {
		for _, m := range financialRe.FindAllStringIndex(text, -1) {
			add(PIIFinancial, m[0], m[1], "a person's financial details")
		}
	}
	if containsAny(lower, []string{"diagnos", "suffer", " mg", "mcg", " ml", "units", "taking", "prescribed", "allergic", "pregnant", "diabetes", "cancer", "hiv", "aids", "epilepsy", "asthma", "depression", "bipolar", "schizophrenia", "adhd", "dementia", "parkinson", "alzheimer", "rehab", "therapy", "surgery", "operation", "miscarriage", "abortion", "stroke", "heart attack"}) {
		for _, m := range healthRe.FindAllStringIndex(text, -1) {
			add(PIIHealth, m[0], m[1], "a person's health details")
		}
	}
}

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			n++
		}
	}
	return n
}
