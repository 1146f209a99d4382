package demosite

// moreSections are the manual sections after the first five; each gets the
// same copies as those (printer-friendly, mirror, session-id variant).
var moreSections = []text{
	{"annual-leave", "Booking annual leave", `Full-time staff receive twenty-eight days of annual leave per
calendar year, pro rata for part-time contracts. Request leave in the time-off tool at least two weeks ahead
for absences longer than three days; your manager approves or declines within five working days. Up to five
unused days may be carried into the first quarter of the following year, after which they lapse. Public
holidays are listed in the tool and are not deducted from your allowance. If the tool shows a wrong balance
after a contract change, raise a ticket with the service desk and attach your new contract summary.`},
	{"parental-leave", "Parental leave", `Parents are entitled to paid leave after the birth or adoption of a
child. Birth mothers take up to twenty-six weeks at full pay, and partners take up to eight weeks, which can
be split into two blocks during the first year. Tell your manager and the people team at least fifteen weeks
before the expected date so that cover can be arranged. Keeping-in-touch days let you work up to ten days
during leave without ending it. On your return you may request reduced hours for up to two years. Adoptive
parents receive the same entitlement, counted from the placement date, and foster carers should ask about
special arrangements. The forms are in the people portal; if the portal does not open, contact the service
desk.`},
	{"meeting-rooms", "Booking meeting rooms", `Meeting rooms are booked through the calendar in your mail
client: add the room as a resource and it accepts or declines automatically. Rooms on the third floor hold up
to twelve people and have a large screen and a ceiling microphone; the small booths on each floor suit two
people and cannot be booked for more than two hours. Bookings that nobody checks in to at the door panel
within fifteen minutes are released. Leave the room tidy and wipe the whiteboard. Faulty screens or
microphones should be reported to the service desk with the room code shown beside the door. Catering for longer workshops can be ordered from the kitchen
team one day in advance.`},
	{"laptops", "Laptops and accessories", `Every employee receives a standard laptop that is replaced after
four years. Developers and designers may choose the high-performance model instead, with their manager's
approval. Docking stations, monitors, keyboards and headsets are ordered in the hardware catalogue and
delivered to your desk or your home address. Disk encryption and automatic updates are enforced and must not
be switched off. Do not leave the laptop in a parked car or check it in as hold luggage. A stolen or damaged
device must be reported to the service desk the same day, and a theft to the police as well. Spare loan machines are available for short periods while yours is
being repaired.`},
	{"mobile-phones", "Company mobile phones", `Staff who are on call or travel often can request a company
mobile phone through their manager. Phones come with a domestic data plan; roaming outside the region must be
switched on in advance by the service desk, otherwise calls abroad are blocked. Mail, chat and the
authenticator app are installed when you enrol the device, and the phone must be locked with a six-digit code
or a fingerprint. Personal use is allowed within reason, but premium numbers are barred. When you leave the
company or change role, hand the phone back at the equipment counter together with its charger. Lost handsets can be wiped
remotely, which erases private photos too, so keep personal backups elsewhere.`},
	{"badges", "Security badges and building access", `Your badge opens the doors of the buildings and
floors your role needs, and it must be worn visibly while you are on site. Do not hold doors open for people
you do not recognise; politely direct them to reception instead. A lost badge is blocked as soon as you report
it to security, and a replacement can be collected the next morning. Entry to the server rooms and the
archive requires an extra approval from the facility manager. Temporary badges for contractors expire
automatically when their contract ends. Problems with a badge reader go to the service desk.`},
	{"personal-data", "Handling personal data", `Personal data about customers, applicants and colleagues
may only be processed for the purpose it was collected for. Store it in the approved systems, never on
removable drives or in private cloud accounts, and delete it when the retention period in the records
schedule expires. Requests from people who want to see or erase their data are forwarded to the data
protection officer within two working days, because the legal deadline is one month. If personal data is sent
to the wrong recipient or a file goes missing, report it at once through the incident form or the service desk.`},
	{"code-of-conduct", "Code of conduct", `Acme expects everyone to treat colleagues, customers and
suppliers with respect. Harassment, discrimination and bullying are not tolerated, whether in the office, at
team events or online. Gifts from suppliers worth more than a modest meal must be declined or registered with
compliance, and conflicts of interest are declared to your manager in writing. You can raise a concern with
your manager, the people team or the confidential whistleblowing line, which an external provider runs and
which accepts anonymous reports. Nobody who reports a concern in good faith will suffer any disadvantage.
Questions about the online module on the code go to the service desk.`},
	{"working-from-home", "Working from home", `Most roles can be done from home up to three days a week by
agreement with your manager. Your home workplace needs a proper chair, a stable internet connection and a
quiet space for calls; the company contributes a one-off allowance towards a desk and a monitor. Keep
confidential papers out of sight of other household members and lock your screen whenever you step away.
Working from another country for more than two weeks needs approval from HR because of tax and insurance
rules. For connection problems follow the VPN guide first, then call the service desk.`},
	{"sickness", "Reporting sickness", `If you are ill and cannot work, tell your manager by phone before ten
o'clock on the first day of absence; a chat message is not enough. Record the absence in the time-off tool as
soon as you are able to. From the fourth calendar day a doctor's certificate is required, which you upload in
the people portal rather than sending it by post. The occupational health service contacts employees who are
absent for longer than three weeks to discuss support and a gradual return. Medical details are confidential
and never shared with your team. Login problems with the portal go to the service desk.`},
	{"email", "Email and calendar", `Your mailbox holds fifty gigabytes, and messages older than five years
are archived automatically. Shared calendars for teams are created on request, and delegates can be allowed
to send invitations on your behalf. Messages from outside the company carry a yellow warning banner; be
careful with links and attachments in them. Automatic forwarding to private addresses is blocked. Set an
out-of-office reply when you are away for more than a day and name a colleague who can help. If mail stops
arriving or the calendar does not synchronise with your phone, contact the service desk.`},
	{"software", "Installing software", `Approved applications are installed from the software portal
without administrator rights; most installations finish within a few minutes. Software that is not in the
portal must be requested with a short business justification, and the security team reviews new products
before they are licensed. Browser extensions are limited to an allow list. Trial versions and freeware
downloaded from the internet may not be installed on company devices, not even temporarily. Licences are
assigned to named users and reclaimed after ninety days without use. The service desk can tell you whether a
spare licence is available before you buy one.`},
	{"wireless", "Wireless network and guest access", `Company laptops join the corporate wireless network
automatically using a device certificate; no password is needed. Private phones and tablets use the staff
network, which gives internet access only, after signing in with your network account once a month. Visitors
get a guest voucher from reception that is valid for one day and limited in bandwidth. Do not set up your own
access points or mobile hotspots in the building, because they interfere with the installed network. Weak
coverage in a particular room can be reported to the service desk together with its location.`},
	{"shared-drives", "Shared drives and document storage", `Team documents belong on the shared drives or in
the team sites of the document management system, not on the local disk of your laptop. Every team site has
an owner who grants access and reviews the member list twice a year. Versions are kept automatically, so an
earlier version of a file can be restored from its history menu. Deleted files remain in the recycle bin for
thirty days. Files larger than two gigabytes belong in the engineering archive instead. To restore a whole
folder or to change the owner of a site, open a request with the service desk.`},
	{"video-meetings", "Video meetings", `Video meetings are held in the company's conferencing application,
which is installed on every laptop and phone. Invitations created from the calendar include a dial-in number
for participants without a camera. Meetings with external guests should enable the lobby so that the host
admits each person. Recording requires the consent of everyone present, and recordings are deleted after
sixty days. Use a headset in open-plan areas to avoid echo. For town-hall broadcasts with more than three
hundred viewers, book the live-event service two weeks ahead through the service desk.`},
	{"visitors", "Registering visitors", `Register visitors in the visitor system at least one day before they
arrive, with their name, company and the host they are meeting. Reception prints a visitor badge and calls the
host, who collects the guest in the lobby and accompanies them at all times. Visitors sign the confidentiality
notice on the tablet at the desk. Groups of more than ten people and visitors who need to enter laboratories
are announced to security in advance. At the end of the visit the badge is handed back at reception. If the
visitor system rejects a booking, ask the service desk for help. Photography is not permitted in production
areas, and laptops brought by guests may only use the guest wireless network. Couriers and delivery drivers
need no registration; they report to the goods entrance.`},
	{"purchasing", "Ordering goods and services", `Office supplies are ordered from the catalogue in the
purchasing system and arrive within two working days. Anything above a small amount that is not in the
catalogue needs a purchase request with a quote attached, and orders over the limit for your grade are
approved by a budget holder. Purchases from new suppliers require a supplier check by the procurement team,
which takes about a week. Company credit cards are reserved for travel and urgent small purchases. Invoices
sent directly to you are forwarded to the accounts payable mailbox. Problems logging into the purchasing
system go to the service desk.`},
	{"learning-budget", "Training and development", `Each employee has a yearly learning budget that can be
spent on courses, conferences, certifications and books related to their role. Discuss your plans with your
manager during the annual review and record them in the learning portal. Internal courses on presentation
skills, project management and languages are free and can be booked directly. External training longer than
three days may have to be partly repaid if you leave within a year. Mandatory courses such as security
awareness and data protection must be completed on time. The service desk handles access issues with the
learning portal.`},
	{"security-incidents", "Reporting security incidents", `Report a suspected security incident straight
away: a phishing link you clicked, a lost device, malware warnings, or someone asking for your password. Use
the report button in your mail client for suspicious messages and call the service desk for everything else;
the line is staffed around the clock. Do not try to investigate on your own, do not delete evidence and do not
switch the affected computer off, but disconnect it from the network. The security team will contact you for
details. Nobody is blamed for reporting an honest mistake quickly; hiding one is far worse. Typical warning signs are
unexpected login prompts, urgent payment requests and messages that imitate senior managers.`},
	{"business-travel", "Booking business travel", `Business trips are booked through the travel agency
portal once your manager has approved the trip. Rail is preferred for journeys under four hours; flights are
booked in economy class unless the flight lasts longer than six hours. Hotels are chosen from the preferred
list where possible. Before travelling abroad, check the country advice on the security page and register
your trip so that the company can reach you in an emergency. Bring your company card for incidental costs.
Login problems with the travel portal are handled by the service desk, changes to bookings by the agency.`},
}
